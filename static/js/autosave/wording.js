// What the annotation page says about its saving, as text from its state: the status line beside Submit and
// the list of what a submission lacks. No DOM: the page (view.js) puts the text where it goes. The strings go
// through Django's JavaScript catalogue (gettext, ngettext, interpolate: globals of the page; tests set them).

/** "a, b and c", or "a, b, ... and 3 more" past six, in the page's language. */
export function joined(items) {
  if (items.length > 6) {
    return interpolate(gettext("%(first)s and %(more)s more"), { first: items.slice(0, 6).join(gettext(", ")), more: items.length - 6 }, true);
  }
  if (items.length <= 1) return items.join("");
  return interpolate(gettext("%(first)s and %(last)s"), { first: items.slice(0, -1).join(gettext(", ")), last: items[items.length - 1] }, true);
}

/**
 * The status line: `state` has the page's `mode` (ok, checking, signed-out, conflict, offline, final), `submit`
 * (a submission asked), `problem` (a refusal's sentence), `working` (something to send or in flight), `savedAt`
 * (when the last save was confirmed, as shown, or ""), and for a reordering `orderProblems` (why the order is
 * not valid yet) and `orderUnconfirmed`.
 */
export function statusLine(state) {
  const { mode, submit, problem, working, savedAt, orderProblems, orderUnconfirmed } = state;
  if (mode === "signed-out" && submit) return gettext("Not submitted yet: you were signed out. Your answers are kept in this browser, and the item is submitted once you sign in again.");
  if (mode === "signed-out") return gettext("Not saved: you were signed out. Your answers are kept in this browser.");
  if (mode === "conflict") return gettext("Not saved: this item was changed in another tab or window (see above).");
  if (mode === "checking") return gettext("Saving… (checking the sign-in)");
  if (mode === "offline") return gettext("Not saved yet (no connection): your answers are kept in this browser and sent when the connection is back.");
  if (problem) return problem;
  if (working) return submit ? gettext("Submitting…") : gettext("Saving…");
  // the bar stays one short line: why the order is not an answer yet is said beside the list (#reorder-status)
  if (orderProblems) return savedAt ? interpolate(gettext("Answers saved at %(time)s; the order is not valid yet."), { time: savedAt }, true) : gettext("The order is not valid yet.");
  if (orderUnconfirmed) return savedAt ? interpolate(gettext("Answers saved at %(time)s; the order is not confirmed yet."), { time: savedAt }, true) : gettext("The order is not confirmed yet.");
  return savedAt ? interpolate(gettext("Draft saved at %(time)s"), { time: savedAt }, true) : "";
}

/**
 * What a submission lacks, one line per question asked of several units ("Rating is missing for turn 2 and
 * turn 4"): `gaps` are the unanswered questions as {label, where}, in page order; `orderProblem` is why the
 * reordering cannot be submitted yet ("" when it can, null when the page has none).
 */
export function missingLines(gaps, orderProblem) {
  const labels = [];
  const where = {};
  for (const gap of gaps) {
    if (!where[gap.label]) { where[gap.label] = []; labels.push(gap.label); }
    where[gap.label].push(gap.where);
  }
  const lines = labels.map((label) => interpolate(gettext("%(question)s is missing for %(units)s"), { question: label, units: joined(where[label]) }, true));
  if (orderProblem !== null && orderProblem !== undefined) {
    lines.push(interpolate(gettext("The order of the turns cannot be submitted yet: %(problems)s"), { problems: orderProblem || gettext("it is not valid") }, true));
  }
  return lines;
}
