// The annotation page's answers, read and written in one place: the saving (autosave/view.js), the keys
// (hotkeys.js) and the turn-by-turn reveal and progress (annotate.js) all go through these functions.
// A question is an element with data-question (data-name: the answer's name, "j:<criterion>:<unit>")
// holding either a <select> whose empty option is "no answer", or radio buttons.

/** The page's questions, in document order. */
export function questionsOf(form) {
  return Array.from(form.querySelectorAll("[data-question]"));
}

/** The question named `name` (data-name), or null. */
export function questionNamed(form, name) {
  return form.querySelector('[data-question][data-name="' + name + '"]');
}

function radios(question) {
  return Array.from(question.querySelectorAll("input[type=radio]"));
}

/** The question's answer as the page shows it now ("" for none). */
export function answerOf(question) {
  if (!question) return "";
  const select = question.querySelector("select");
  if (select) return select.value;
  const checked = radios(question).find((radio) => radio.checked);
  return checked ? checked.value : "";
}

/** Whether the question shows an answer. */
export function isAnswered(question) {
  return answerOf(question) !== "";
}

/** The answer the server rendered (the stored one), whatever was changed on the page since. */
export function savedAnswerOf(question) {
  if (!question) return "";
  const select = question.querySelector("select");
  if (select) {
    const chosen = Array.from(select.options).find((o) => o.defaultSelected);
    return chosen ? chosen.value : (select.options.length ? select.options[0].value : "");
  }
  const checked = radios(question).find((radio) => radio.defaultChecked);
  return checked ? checked.value : "";
}

/** Show `value` as the question's answer ("" clears it); no change event. */
export function showAnswer(question, value) {
  if (!question) return;
  const select = question.querySelector("select");
  if (select) select.value = value;
  else radios(question).forEach((radio) => { radio.checked = radio.value === value; });
}

/** Whether the question takes answers now: not read-only, not stopped (a study's time up). */
export function takesAnswers(question) {
  const control = question && question.querySelector("select, input[type=radio]");
  return Boolean(control) && !control.disabled;
}

/** The question's values in the order shown. */
export function valuesOf(question) {
  const select = question.querySelector("select");
  if (select) return Array.from(select.options).map((o) => o.value).filter((v) => v !== "");
  return radios(question).map((radio) => radio.value);
}

/**
 * Give `value` as the person's answer, as a click would (a change event, which the saving hears);
 * false when the question takes no answers now or has no such value.
 */
export function giveAnswer(question, value) {
  if (!takesAnswers(question) || valuesOf(question).indexOf(value) === -1) return false;
  const select = question.querySelector("select");
  let control = select;
  if (select) select.value = value;
  else {
    control = radios(question).find((radio) => radio.value === value);
    control.checked = true;
  }
  control.dispatchEvent(new Event("change", { bubbles: true }));
  return true;
}

/** The value's label as the page shows it (a radio's without its key cap), or the value itself. */
export function valueLabel(question, value) {
  const select = question && question.querySelector("select");
  if (select) {
    const option = Array.from(select.options).find((o) => o.value === value);
    return option ? option.textContent : value;
  }
  const radio = question && radios(question).find((r) => r.value === value);
  if (!radio) return value;
  const shown = radio.parentNode.querySelector(".choice-label");
  if (shown) return shown.textContent.trim();
  return Array.from(radio.parentNode.childNodes)
    .filter((node) => node.nodeType === Node.TEXT_NODE)
    .map((node) => node.textContent).join("").trim();
}
