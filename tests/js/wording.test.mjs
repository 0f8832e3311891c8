// node --test: what the annotation page says about its saving (static/js/autosave/wording.js).
import { test } from "node:test";
import assert from "node:assert/strict";

// Django's JavaScript catalogue, untranslated (the page's globals)
globalThis.gettext = (text) => text;
globalThis.ngettext = (one, many, n) => (n === 1 ? one : many);
globalThis.interpolate = (text, values) => text.replace(/%\((\w+)\)s/g, (_m, name) => String(values[name]));
const { joined, missingLines, statusLine } = await import("../../static/js/autosave/wording.js");

test("lists read as a sentence, and long ones are cut after six", () => {
  assert.equal(joined(["turn 1"]), "turn 1");
  assert.equal(joined(["turn 1", "turn 2", "turn 3"]), "turn 1, turn 2 and turn 3");
  assert.equal(joined(["1", "2", "3", "4", "5", "6", "7", "8"]), "1, 2, 3, 4, 5, 6 and 2 more");
});

test("the status line says the most pressing state first", () => {
  const ok = { mode: "ok", submit: false, problem: "", working: false, savedAt: "", orderProblems: "", orderUnconfirmed: false };
  assert.equal(statusLine(ok), "");
  assert.equal(statusLine({ ...ok, savedAt: "10:00:00 UTC" }), "Draft saved at 10:00:00 UTC");
  assert.equal(statusLine({ ...ok, working: true }), "Saving…");
  assert.equal(statusLine({ ...ok, working: true, submit: true }), "Submitting…");
  assert.equal(statusLine({ ...ok, working: true, problem: "Not saved: x" }), "Not saved: x");
  assert.match(statusLine({ ...ok, mode: "offline", problem: "Not saved: x" }), /no connection/);
  assert.match(statusLine({ ...ok, mode: "signed-out", submit: true }), /^Not submitted yet: you were signed out/);
  assert.match(statusLine({ ...ok, mode: "conflict" }), /changed in another tab/);
  assert.equal(statusLine({ ...ok, orderProblems: "turn 3 twice", savedAt: "10:00:00 UTC" }),
    "Answers saved at 10:00:00 UTC; the order is not valid yet.");
  assert.equal(statusLine({ ...ok, orderUnconfirmed: true }), "The order is not confirmed yet.");
});

test("what a submission lacks is one line per question, with its units, and the order last", () => {
  const gaps = [{ label: "Rating", where: "turn 2" }, { label: "Nugget", where: "post 1" }, { label: "Rating", where: "turn 4" }];
  assert.deepEqual(missingLines(gaps, null), ["Rating is missing for turn 2 and turn 4", "Nugget is missing for post 1"]);
  assert.deepEqual(missingLines([], ""), ["The order of the turns cannot be submitted yet: it is not valid"]);
  assert.deepEqual(missingLines([], "turn 3 is placed twice"), ["The order of the turns cannot be submitted yet: turn 3 is placed twice"]);
});
