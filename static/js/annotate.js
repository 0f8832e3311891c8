// Annotation page: turn-by-turn reveal (the newly revealed turn scrolls into view and takes focus),
// nugget grouping and the progress line ("Turn 4 of 11 · 3 of 13 answered"), visible from the first turn,
// and room for the sticky Submit bar: the page's scroll padding follows the bar's height, so that a question
// scrolled into view (by a key, Tab, or a revealed turn) is never left under the bar.
// Wired through data-* attributes of #annotation-form. Saving lives in autosave/view.js, keys in hotkeys.js,
// and the answers are read through answers.js, as they do.
import { answerOf, isAnswered, questionsOf } from "./answers.js";

const form = document.getElementById("annotation-form");
if (form) annotationPage();

/** Keep the page's bottom scroll padding at the height of the sticky bar (it wraps on narrow screens). */
function clearOfBar(bar) {
  const room = () => {
    document.documentElement.style.scrollPaddingBottom = Math.ceil(bar.getBoundingClientRect().height) + 8 + "px";
  };
  room();
  if (window.ResizeObserver) new ResizeObserver(room).observe(bar);
  else window.addEventListener("resize", room);
}

function annotationPage() {
  const bar = document.getElementById("actions");
  if (bar) clearOfBar(bar);
  const progressEl = document.getElementById("progress");
  const systemTurns = form.dataset.progressNoun === "System turn";
  // numbers in the page's language (document.documentElement.lang)
  const number = new Intl.NumberFormat(document.documentElement.lang || undefined);
  let revealed = -1;

  // Parts with data-reveal="k" appear once the first k turn-by-turn questions are answered.
  function reveal() {
    const steps = Array.from(form.querySelectorAll("[data-incremental]"));
    let answered = 0;
    while (answered < steps.length && isAnswered(steps[answered])) answered += 1;
    form.querySelectorAll("[data-reveal]").forEach(function (el) {
      el.hidden = Number(el.dataset.reveal) > answered;
    });
    const grew = revealed >= 0 && answered > revealed;
    revealed = answered;
    return { answered: answered, total: steps.length, grew: grew, next: steps[answered] || null };
  }

  function showProgress(state) {
    if (!progressEl) return;
    const questions = questionsOf(form);
    // the reordering counts as one answer, given once its order is valid (and confirmed, if left as shown)
    const order = document.getElementById("reorder-list");
    const done = questions.filter(isAnswered).length + (order && order.dataset.order ? 1 : 0);
    const total = questions.length + (order ? 1 : 0);
    let text = interpolate(gettext("%(done)s of %(total)s answered"), { done: number.format(done), total: number.format(total) }, true);
    if (state.total) {
      const step = { n: number.format(Math.min(state.answered + 1, state.total)), total: number.format(state.total) };
      text = (systemTurns ? interpolate(gettext("System turn %(n)s of %(total)s"), step, true) : interpolate(gettext("Turn %(n)s of %(total)s"), step, true)) + " · " + text;
    }
    progressEl.textContent = text;
  }

  // Consecutive units of one speaker with the same nugget label are shown as one nugget.
  function groupNuggets() {
    const units = Array.from(form.querySelectorAll("[data-nugget-unit]"));
    let previous = null;
    let count = 0;
    units.forEach(function (el) {
      const label = answerOf(el);
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
        badge.textContent = interpolate(gettext("Nugget %(n)s: %(label)s"), { n: count, label: label }, true);
      } else if (badge) {
        badge.remove();
      }
      previous = isNugget ? { label: label, speaker: speaker } : null;
    });
  }

  function update() {
    const state = reveal();
    groupNuggets();
    showProgress(state);
    return state;
  }

  // A person's answer: a newly revealed turn scrolls into view and takes focus (its question, or
  // what follows the last turn: the questions on the whole dialogue or the Submit button).
  form.addEventListener("change", function (event) {
    const question = event.target.closest("[data-question]");
    if (question && isAnswered(question)) {
      question.classList.remove("missing");
      question.removeAttribute("aria-invalid");
    }
    const state = update();
    if (!state.grew) return;
    let target = state.next;
    if (!target) {
      target = form.querySelector(".dialogue-questions:not([hidden]) [data-question]") ||
        form.querySelector(".reorder:not([hidden]) #reorder-list li[tabindex='0']") ||
        document.getElementById("submit-button");
    }
    if (!target || target.hidden) return;
    const block = target.closest(".block");
    target.focus({ preventScroll: true });
    (block || target).scrollIntoView({ block: "nearest" });
    target.scrollIntoView({ block: "nearest" });
  });
  // Answers put in place by the page itself (restored from this browser, or saved in another tab).
  form.addEventListener("dialeval:applied", update);
  form.addEventListener("dialeval:reorder", update);

  update();
}
