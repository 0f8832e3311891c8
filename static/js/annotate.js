// Annotation page: turn-by-turn reveal, nugget grouping, autosave of drafts, time on task,
// and a guard against double submission. Wired through data-* attributes of #annotation-form.
(function () {
  "use strict";
  const form = document.getElementById("annotation-form");
  if (!form) return;
  const readOnly = form.dataset.readOnly === "true";
  const statusEl = document.getElementById("save-status");
  const secondsField = document.getElementById("seconds-field");
  let unsentSeconds = 0;
  let saveTimer = null;
  let saving = Promise.resolve();

  function csrfToken() {
    const input = form.querySelector("input[name=csrfmiddlewaretoken]");
    return input ? input.value : "";
  }

  function questionAnswered(el) {
    const select = el.querySelector("select");
    if (select) return select.value !== "";
    return el.querySelector("input[type=radio]:checked") !== null;
  }

  // Parts with data-reveal="k" appear once the first k turn-by-turn questions are answered.
  function reveal() {
    const steps = Array.from(form.querySelectorAll("[data-incremental]"));
    let answered = 0;
    while (answered < steps.length && questionAnswered(steps[answered])) answered += 1;
    form.querySelectorAll("[data-reveal]").forEach(function (el) {
      el.hidden = Number(el.dataset.reveal) > answered;
    });
    document.querySelectorAll(".actions[data-reveal], .dialogue-questions[data-reveal], .reorder[data-reveal]")
      .forEach(function (el) { el.hidden = Number(el.dataset.reveal) > answered; });
  }

  // Consecutive units of one speaker with the same nugget label are shown as one nugget.
  function groupNuggets() {
    const units = Array.from(form.querySelectorAll("[data-nugget-unit]"));
    let previous = null;
    let count = 0;
    units.forEach(function (el) {
      const select = el.querySelector("select");
      const label = select ? select.value : "";
      const holder = el.closest(".post") || el.closest(".block");
      const speaker = holder ? (holder.dataset.speaker || holder.getAttribute("aria-label")) : "";
      const isNugget = label !== "" && !/NaN$/.test(label);
      const continues = isNugget && previous && previous.label === label && previous.speaker === speaker;
      holder.classList.toggle("nugget-start", isNugget && !continues);
      holder.classList.toggle("nugget-cont", Boolean(continues));
      let badge = holder.querySelector(".nugget-badge");
      if (isNugget && !continues) {
        count += 1;
        if (!badge) {
          badge = document.createElement("span");
          badge.className = "nugget-badge";
          holder.insertBefore(badge, holder.firstChild);
        }
        badge.textContent = "Nugget " + count + ": " + label;
      } else if (badge) {
        badge.remove();
      }
      previous = isNugget ? { label: label, speaker: speaker } : null;
    });
  }

  function payload() {
    const data = {};
    new FormData(form).forEach(function (value, name) {
      if (name.startsWith("j:") || name === "reordering") data[name] = value;
    });
    data.seconds = unsentSeconds;
    return data;
  }

  function setStatus(text) { if (statusEl) statusEl.textContent = text; }

  function saveDraft() {
    if (readOnly) return saving;
    const body = payload();
    const sentSeconds = body.seconds;
    saving = saving.then(function () {
      return fetch(form.dataset.draftUrl, {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-CSRFToken": csrfToken() },
        body: JSON.stringify(body),
        credentials: "same-origin",
      }).then(function (response) {
        return response.json().then(function (answer) {
          if (answer.ok) {
            unsentSeconds = Math.max(0, unsentSeconds - sentSeconds);
            setStatus("Draft saved at " + new Date().toLocaleTimeString());
          } else {
            setStatus("Not saved: " + answer.problems.join("; "));
          }
        });
      }).catch(function () { setStatus("Not saved (no connection); your answers are still on this page."); });
    });
    return saving;
  }

  function scheduleSave() {
    if (readOnly) return;
    clearTimeout(saveTimer);
    setStatus("Saving…");
    saveTimer = setTimeout(saveDraft, 600);
  }

  form.addEventListener("change", function () { reveal(); groupNuggets(); scheduleSave(); });
  form.addEventListener("dialeval:changed", scheduleSave);

  setInterval(function () {
    if (!readOnly && document.visibilityState === "visible") unsentSeconds += 1;
  }, 1000);

  form.addEventListener("submit", function (event) {
    const button = document.getElementById("submit-button");
    if (form.dataset.submitting === "true") { event.preventDefault(); return; }
    form.dataset.submitting = "true";
    if (button) { button.disabled = true; button.textContent = "Submitting…"; }
    clearTimeout(saveTimer);
    secondsField.value = String(unsentSeconds);
  });

  reveal();
  groupNuggets();
})();
