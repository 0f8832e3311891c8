// Keyboard labelling on the annotation page. Number keys choose the n-th value of the current question
// (in the order shown), letters where a choice shows one (y/n, n/p/b), and choosing moves on to the next
// question; j/k or Down/Up move between questions and turns; Enter goes to the next unanswered question
// (revealing the next turn) or submits when everything is answered; ? opens the list of keys. Keys never
// act while the focus is in a text field, and never change an answer the page no longer takes (read-only, or a
// study's time is up). The current question is the one holding the focus; it is scrolled into view clear of
// the sticky Submit bar (annotate.js keeps the page's scroll padding at the bar's height).
import { giveAnswer, isAnswered, takesAnswers, valuesOf } from "./answers.js";

const form = document.getElementById("annotation-form");
if (form) hotkeys();

function hotkeys() {
  const readOnly = form.dataset.readOnly === "true";
  const help = document.getElementById("help-dialog");
  const helpButton = document.getElementById("help-button");
  const STOPS = "[data-question], #reorder-list";
  const NOT_TYPING = ["radio", "checkbox", "button", "submit", "reset", "range", "color", "file", "image", "hidden"];
  let current = null;

  function typing(el) {
    if (!el || !el.tagName) return false;
    if (el.isContentEditable || el.tagName === "TEXTAREA") return true;
    return el.tagName === "INPUT" && NOT_TYPING.indexOf(el.type) === -1;
  }

  function shown(el) { return el && !el.closest("[hidden]") && el.getClientRects().length > 0; }

  function stops() { return Array.from(form.querySelectorAll(STOPS)).filter(shown); }

  function stopOf(el) { return el && el.closest ? el.closest(STOPS) : null; }

  function answered(stop) {
    if (stop.id === "reorder-list") return !stop.classList.contains("invalid");
    return isAnswered(stop);
  }

  function mark(stop) {
    if (current) current.classList.remove("current");
    current = stop;
    if (current) current.classList.add("current");
  }

  function focusStop(stop) {
    if (!stop) return;
    mark(stop);
    const target = stop.id === "reorder-list"
      ? (stop.querySelector("li[tabindex='0']") || stop.querySelector("li"))
      : stop;
    target.focus({ preventScroll: true });
    const block = target.closest(".block");
    if (block) block.scrollIntoView({ block: "nearest" });
    target.scrollIntoView({ block: "nearest" });
  }

  function submitButton() {
    const button = document.getElementById("submit-button");
    return button && shown(button) ? button : null;
  }

  function move(delta) {
    const list = stops();
    let i = list.indexOf(current);
    if (i === -1) i = delta > 0 ? -1 : list.length;
    const next = list[i + delta];
    if (next) focusStop(next);
    else if (delta > 0 && submitButton()) submitButton().focus();
  }

  function firstGap() { return stops().find(function (stop) { return !answered(stop); }) || null; }

  function nextOrSubmit() {
    const gap = firstGap();
    if (gap) { focusStop(gap); return; }
    const button = submitButton();
    if (button && !button.disabled) form.requestSubmit(button);
  }

  function choose(stop, index) {
    if (readOnly || !stop || stop.id === "reorder-list" || !takesAnswers(stop)) return false;
    const value = valuesOf(stop)[index];
    if (value === undefined || !giveAnswer(stop, value)) return false;
    const list = stops(); // the answer may have revealed the next turn
    const i = list.indexOf(stop);
    if (i >= 0 && i + 1 < list.length) focusStop(list[i + 1]);
    else if (submitButton()) { mark(null); submitButton().focus(); }
    return true;
  }

  // The choice a key chooses: the one whose keys (aria-keyshortcuts; data-key on a list's options) name it.
  function keyIndex(stop, key) {
    if (!stop) return -1;
    const select = stop.querySelector("select");
    if (select) {
      return Array.from(select.options).filter(function (option) { return option.value !== ""; })
        .findIndex(function (option) { return option.dataset.key === key; });
    }
    const radios = Array.from(stop.querySelectorAll("input[type=radio]"));
    return radios.findIndex(function (radio) {
      return (radio.getAttribute("aria-keyshortcuts") || "").split(" ").indexOf(key) >= 0;
    });
  }

  function toggleHelp() {
    if (!help) return;
    if (help.open) help.close();
    else help.showModal();
  }

  if (helpButton) helpButton.addEventListener("click", toggleHelp);

  document.addEventListener("focusin", function (event) {
    const stop = stopOf(event.target);
    if (stop) mark(stop);
  });

  document.addEventListener("keydown", function (event) {
    if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
    const target = event.target;
    if (typing(target)) return;
    if (event.key === "?") { event.preventDefault(); toggleHelp(); return; }
    if (help && help.open) return;
    const stop = stopOf(target) || (current && shown(current) ? current : null);
    const onControl = target.matches && target.matches("input[type=radio], select");
    const key = event.key;
    if (key === "j" || (key === "ArrowDown" && !onControl)) move(1);
    else if (key === "k" || (key === "ArrowUp" && !onControl)) move(-1);
    else if (key === "Enter") {
      if (target.closest && target.closest("button, a, summary, dialog, #signin-panel")) return;
      nextOrSubmit();
    } else if (/^[0-9]$/.test(key)) {
      const index = keyIndex(stop, key);
      if (!choose(stop, index === -1 ? Number(key) - 1 : index)) return;
    } else if (/^[a-z]$/.test(key) && stop && stop.id !== "reorder-list" && !readOnly) {
      const index = keyIndex(stop, key);
      if (index === -1) return;
      choose(stop, index);
    } else {
      return;
    }
    event.preventDefault();
  });

  // Start where the work is: the first question marked missing by a refused submission, else the first
  // unanswered one (the page stays at the top when that is the first question).
  document.addEventListener("DOMContentLoaded", function () {
    if (readOnly) return;
    const missing = form.querySelector("[data-question].missing");
    const start = missing || firstGap();
    if (!start) return;
    const first = stops()[0] === start;
    mark(start);
    const target = start.id === "reorder-list" ? start.querySelector("li[tabindex='0']") : start;
    target.focus({ preventScroll: first });
    if (!first) target.scrollIntoView({ block: "center" });
  });
}
