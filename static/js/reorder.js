// Reordering widget: drag and drop (vendored SortableJS) with Move up / Move down buttons, a live
// message when the order breaks the constraints, and submit disabled until the order is valid.
(function () {
  "use strict";
  const list = document.getElementById("reorder-list");
  if (!list) return;
  const form = document.getElementById("annotation-form");
  const field = document.getElementById("reordering-field");
  const status = document.getElementById("reorder-status");
  const submit = document.getElementById("submit-button");
  const firstSpeaker = list.dataset.firstSpeaker;

  function items() { return Array.from(list.querySelectorAll("li.reorder-item")); }

  function problems() {
    const speakers = items().map(function (li) { return li.dataset.speaker; });
    const found = [];
    if (speakers[0] !== firstSpeaker) found.push("the first turn must be by " + firstSpeaker);
    for (let i = 1; i < speakers.length; i += 1) {
      if (speakers[i] === speakers[i - 1]) {
        found.push("turns " + i + " and " + (i + 1) + " are both by " + speakers[i] + "; speakers must alternate");
        break;
      }
    }
    return found;
  }

  function update(announce, initial) {
    const order = items().map(function (li) { return Number(li.dataset.turn); });
    const wrong = problems();
    field.value = wrong.length ? "" : JSON.stringify(order);
    list.classList.toggle("invalid", wrong.length > 0);
    if (submit) submit.disabled = wrong.length > 0;
    if (wrong.length) status.textContent = "This order cannot be submitted: " + wrong.join("; ") + ".";
    else if (announce) status.textContent = announce;
    else status.textContent = "The order is valid.";
    if (!initial) form.dispatchEvent(new Event("dialeval:changed"));
  }

  function position(li) { return items().indexOf(li) + 1; }

  list.addEventListener("click", function (event) {
    const button = event.target.closest("button");
    if (!button) return;
    const li = button.closest("li");
    if (button.classList.contains("move-up") && li.previousElementSibling) {
      list.insertBefore(li, li.previousElementSibling);
    } else if (button.classList.contains("move-down") && li.nextElementSibling) {
      list.insertBefore(li.nextElementSibling, li);
    } else {
      return;
    }
    button.focus();
    update("Moved to position " + position(li) + " of " + items().length + ".");
  });

  if (window.Sortable && form.dataset.readOnly !== "true") {
    window.Sortable.create(list, {
      animation: 120,
      onEnd: function (event) { update("Moved to position " + (event.newIndex + 1) + " of " + items().length + "."); },
    });
  }
  update("", true);
})();
