// node --test: resolving a conflict answer by answer (static/js/autosave/conflicts.js).
import { test } from "node:test";
import assert from "node:assert/strict";
import * as drafts from "../../static/js/autosave/draft_store.js";
import { offered, resolve, unchosen } from "../../static/js/autosave/conflicts.js";

function conflicted() {
  const store = drafts.createStore({ version: 3, known: { "j:A:0": "1", "j:B:0": "x", "j:C:0": "p" } });
  drafts.record(store, "j:A:0", "2");
  drafts.record(store, "j:C:0", "q");
  drafts.record(store, "j:E:0", "e"); // not in the conflict
  drafts.adopt(store, { judgements: { "j:A:0": "3", "j:B:0": "z", "j:C:0": "r" }, version: 8 });
  return store;
}

test("every answer changed here must be chosen before anything is sent", () => {
  const store = conflicted();
  assert.deepEqual(unchosen(store.conflict, {}).map((i) => i.name), ["j:A:0", "j:C:0"]);
  assert.equal(resolve(store, { "j:A:0": "mine" }), null);
  assert.notEqual(store.conflict, null);
  assert.equal(drafts.outgoing(store), null);
});

test("only the chosen values are sent, each with the stored value as its base", () => {
  const store = conflicted();
  const show = resolve(store, { "j:A:0": "mine", "j:C:0": "saved" });
  assert.deepEqual(show, { "j:B:0": "z", "j:C:0": "r" });
  const { body } = drafts.outgoing(store);
  assert.equal(body.version, 8);
  assert.deepEqual(body.judgements, [
    { criterion: "A", unit: 0, value: "2", base: "3" },
    { criterion: "E", unit: 0, value: "e", base: "" },
  ]);
});

test("keeping one's own old value for a question changed only elsewhere writes it back, seen", () => {
  const store = conflicted();
  resolve(store, { "j:A:0": "saved", "j:B:0": "mine", "j:C:0": "saved" });
  const { body } = drafts.outgoing(store);
  assert.deepEqual(body.judgements.find((j) => j.criterion === "B"), { criterion: "B", unit: 0, value: "x", base: "z" });
});

test("an answer changed while the conflict is open is what 'keep mine' keeps", () => {
  const store = conflicted();
  drafts.record(store, "j:A:0", "5");
  drafts.record(store, "j:B:0", "w"); // a question changed only elsewhere, now changed here too
  assert.deepEqual(unchosen(store.conflict, {}).map((i) => i.name), ["j:A:0", "j:B:0", "j:C:0"]);
  resolve(store, { "j:A:0": "mine", "j:B:0": "mine", "j:C:0": "mine" });
  const values = Object.fromEntries(drafts.outgoing(store).body.judgements.map((j) => [j.criterion, [j.value, j.base]]));
  assert.deepEqual(values, { A: ["5", "3"], B: ["w", "z"], C: ["q", "r"], E: ["e", ""] });
});

test("a question this page never answered offers only the saved answer: keeping 'mine' never sends a blank", () => {
  // another tab saved A and S; this page, which never answered S, changed A
  const store = drafts.createStore({ version: 1, known: {} });
  drafts.record(store, "j:A:0", "-2");
  drafts.adopt(store, { judgements: { "j:A:0": "2", "j:S:0": "1" }, version: 3 });
  const [a, s] = ["j:A:0", "j:S:0"].map((name) => store.conflict.items.find((i) => i.name === name));
  assert.deepEqual(offered(a), ["mine", "saved"]);
  assert.deepEqual(offered(s), ["saved"]);
  const show = resolve(store, { "j:A:0": "mine", "j:S:0": "mine" });
  assert.deepEqual(show, { "j:S:0": "1" });
  assert.deepEqual(drafts.outgoing(store).body.judgements, [{ criterion: "A", unit: 0, value: "-2", base: "2" }]);
});

test("an answer this page removed is still offered: keeping it removes the saved one, seen", () => {
  const store = drafts.createStore({ version: 1, known: { "j:S:0": "1" } });
  drafts.record(store, "j:S:0", "");
  drafts.adopt(store, { judgements: { "j:S:0": "2" }, version: 3 });
  const [item] = store.conflict.items;
  assert.deepEqual(offered(item), ["mine", "saved"]);
  resolve(store, { "j:S:0": "mine" });
  assert.deepEqual(drafts.outgoing(store).body.judgements, [{ criterion: "S", unit: 0, value: "", base: "2" }]);
});
