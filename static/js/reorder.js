// Reordering widget: drag and drop (vendored SortableJS), Move up / Move down buttons, and the keyboard
// (Up/Down or k/j pick a turn, Shift+Up/Down or Shift+K/J move it). A live message says why an order
// breaks the constraints (and that it is therefore not saved yet); submit stays disabled until it is valid.
// An order still as shown (the shuffle may happen to be valid) is an answer only once the annotator ticks
// "The order shown is my answer" (#reorder-confirm); the server records such an order as kept as shown.
// The current valid order is kept in #reorder-list's data-order ("" while invalid) for autosave/view.js, which
// hears of each change by a "dialeval:reorder" event and can put an order in place by "dialeval:set-order".
(function () {
  "use strict";
  const list = document.getElementById("reorder-list");
  if (!list) return;
  const form = document.getElementById("annotation-form");
  const field = document.getElementById("reordering-field");
  const status = document.getElementById("reorder-status");
  const submit = document.getElementById("submit-button");
  const firstSpeaker = list.dataset.firstSpeaker;
  const firstSpeakerLabel = list.dataset.firstSpeakerLabel || firstSpeaker;  // as the reader's language names it
  const readOnly = form.dataset.readOnly === "true";
  const confirmBox = document.getElementById("reorder-confirm");
  const confirmRow = document.getElementById("reorder-confirm-row");

  function items() { return Array.from(list.querySelectorAll("li.reorder-item")); }

  function problems() {
    const speakers = items().map(function (li) { return li.dataset.speaker; });
    const found = [];
    if (speakers[0] !== firstSpeaker) found.push(interpolate(gettext("the first turn must be by %(speaker)s"), { speaker: firstSpeakerLabel }, true));
    for (let i = 1; i < speakers.length; i += 1) {
      if (speakers[i] === speakers[i - 1]) {
        found.push(interpolate(gettext("turns %(a)s and %(b)s are both by %(speaker)s; speakers must alternate"), { a: i, b: i + 1, speaker: items()[i].dataset.speakerLabel || speakers[i] }, true));
        break;
      }
    }
    return found;
  }

  // how: "initial" (page load), "applied" (put in place by the page), or "" (the person moved a turn)
  // the turns still stand as they were shown (data-turn numbers the turns as shown: 0, 1, 2, ...)
  function asShown(order) { return order.every(function (turn, i) { return turn === i; }); }

  function update(announce, how) {
    const order = items().map(function (li) { return Number(li.dataset.turn); });
    const wrong = problems();
    const untouched = !wrong.length && asShown(order);
    if (confirmRow) confirmRow.hidden = !untouched;
    if (confirmBox && untouched && how === "applied") confirmBox.checked = true;  // confirmed in another tab
    const unconfirmed = untouched && confirmBox && !confirmBox.checked;
    const value = wrong.length || unconfirmed ? "" : JSON.stringify(order);
    field.value = value;
    list.dataset.order = value;
    list.dataset.problems = wrong.join("; ");
    list.dataset.unconfirmed = unconfirmed ? "true" : "";
    list.classList.toggle("invalid", wrong.length > 0);
    list.setAttribute("aria-invalid", wrong.length ? "true" : "false");
    if (submit) submit.disabled = wrong.length > 0 || unconfirmed;
    if (wrong.length) status.textContent = interpolate(gettext("This order cannot be submitted and is not saved yet: %(problems)s."), { problems: wrong.join("; ") }, true);
    else if (unconfirmed) status.textContent = gettext("The turns are still in the order they were shown in. If this is the order that reads most coherently, tick “The order shown is my answer”; otherwise move the turns.");
    else if (announce) status.textContent = announce;
    else if (untouched) status.textContent = gettext("The order shown is your answer.");
    else status.textContent = gettext("The order is valid.");
    form.dispatchEvent(new CustomEvent("dialeval:reorder", {
      detail: { order: value ? order : null, problems: wrong, unconfirmed: Boolean(unconfirmed), initial: how === "initial", applied: how === "applied" },
    }));
  }

  if (confirmBox && !readOnly) confirmBox.addEventListener("change", function () { update(""); });

  function position(li) { return items().indexOf(li) + 1; }

  function focusItem(li) {
    items().forEach(function (other) { other.tabIndex = other === li ? 0 : -1; });
    li.focus();
  }

  function move(li, delta) {
    if (delta < 0 && li.previousElementSibling) list.insertBefore(li, li.previousElementSibling);
    else if (delta > 0 && li.nextElementSibling) list.insertBefore(li.nextElementSibling, li);
    else return false;
    update(interpolate(gettext("Moved to position %(n)s of %(total)s."), { n: position(li), total: items().length }, true));
    return true;
  }

  list.addEventListener("click", function (event) {
    const button = event.target.closest("button");
    if (!button || readOnly) return;
    const li = button.closest("li");
    if (!move(li, button.classList.contains("move-up") ? -1 : button.classList.contains("move-down") ? 1 : 0)) return;
    button.focus();
  });

  list.addEventListener("keydown", function (event) {
    const li = event.target;
    if (!li.classList || !li.classList.contains("reorder-item") || event.ctrlKey || event.metaKey || event.altKey) return;
    const up = event.key === "ArrowUp" || event.key === "k" || event.key === "K";
    const down = event.key === "ArrowDown" || event.key === "j" || event.key === "J";
    if (!up && !down) return;
    if (event.shiftKey) {
      event.preventDefault();
      if (!readOnly && move(li, up ? -1 : 1)) focusItem(li);
      return;
    }
    const sibling = up ? li.previousElementSibling : li.nextElementSibling;
    if (!sibling) return; // past either end: hotkeys.js moves on to the previous / next question
    event.preventDefault();
    focusItem(sibling);
  });

  list.addEventListener("focusin", function (event) {
    if (event.target.classList && event.target.classList.contains("reorder-item")) {
      items().forEach(function (other) { other.tabIndex = other === event.target ? 0 : -1; });
    }
  });

  form.addEventListener("dialeval:set-order", function (event) {
    const byTurn = {};
    items().forEach(function (li) { byTurn[li.dataset.turn] = li; });
    const order = event.detail.order || [];
    if (order.length !== items().length || !order.every(function (t) { return byTurn[t]; })) return;
    order.forEach(function (turn) { list.appendChild(byTurn[turn]); });
    update("", "applied");
  });

  if (window.Sortable && !readOnly) {
    window.Sortable.create(list, {
      animation: 120,
      onEnd: function (event) { update(interpolate(gettext("Moved to position %(n)s of %(total)s."), { n: event.newIndex + 1, total: items().length }, true)); },
    });
  }
  update("", "initial");
})();
