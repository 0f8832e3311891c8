// node --test: the page's draft (static/js/autosave/draft_store.js), without a browser.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as drafts from "../../static/js/autosave/draft_store.js";

const fresh = (known = {}) => drafts.createStore({ version: 3, known });

test("an answer goes out with the value the page last saw as its base", () => {
  const store = fresh({ "j:A:0": "1" });
  drafts.record(store, "j:A:0", "2");
  drafts.record(store, "j:S:1", "0");
  const out = drafts.outgoing(store);
  assert.deepEqual(out.body.judgements, [
    { criterion: "A", unit: 0, value: "2", base: "1" },
    { criterion: "S", unit: 1, value: "0", base: "" },
  ]);
  assert.equal(out.body.version, 3);
  assert.equal(out.body.submit, false);
});

test("an answer changed back to the value seen is still sent: it may no longer be what is stored", () => {
  const store = fresh({ "j:A:0": "1" });
  drafts.record(store, "j:A:0", "2");
  drafts.record(store, "j:A:0", "1");
  assert.deepEqual(drafts.outgoing(store).body.judgements, [{ criterion: "A", unit: 0, value: "1", base: "1" }]);
  const untouched = fresh({ "j:A:0": "1" });
  drafts.record(untouched, "j:A:0", "1"); // the same value again: no change, nothing to send
  assert.equal(drafts.outgoing(untouched), null);
});

test("the reordering goes out as lists", () => {
  const store = fresh({ reordering: "[0,1,2]" });
  drafts.record(store, "reordering", "[0,2,1]");
  const { body } = drafts.outgoing(store);
  assert.deepEqual([body.reordering, body.reordering_base, body.judgements], [[0, 2, 1], [0, 1, 2], []]);
});

test("a confirmed save keeps an answer changed again while it was in flight, with the new base", () => {
  const store = fresh();
  drafts.record(store, "j:A:0", "1");
  const out = drafts.outgoing(store);
  drafts.record(store, "j:A:0", "2");
  drafts.confirmed(store, out, { version: 4, stale: false });
  assert.deepEqual(store.pending, { "j:A:0": { value: "2", base: "1" } });
  assert.equal(store.known["j:A:0"], "1");
  assert.equal(store.version, 4);
});

test("a stale save shows answers given elsewhere when none of this page's clashes", () => {
  const store = fresh({ "j:A:0": "1" });
  drafts.record(store, "j:S:0", "0");
  const out = drafts.outgoing(store);
  const answer = {
    version: 6,
    stale: true,
    judgements: [{ criterion: "A", unit: 0, value: "2" }, { criterion: "S", unit: 0, value: "0" }],
    revisions: [{ criterion: "A", unit: 0, revision: 5 }, { criterion: "S", unit: 0, revision: 6 }],
  };
  const outcome = drafts.confirmed(store, out, answer);
  assert.deepEqual(outcome.updated, ["j:A:0"]);
  assert.equal(outcome.conflict, false);
  assert.equal(store.known["j:A:0"], "2");
  assert.equal(store.version, 6);
});

test("a clash lists every question whose stored value differs from what the page saw, and stops sending", () => {
  const store = fresh({ "j:A:0": "1", "j:B:0": "x", "j:C:0": "" });
  drafts.record(store, "j:A:0", "2"); // changed here and elsewhere: a clash
  drafts.record(store, "j:D:0", "y"); // changed here only
  const stored = { "j:A:0": "3", "j:B:0": "z", "j:C:0": "" };
  const outcome = drafts.adopt(store, { judgements: stored, version: 9, revisions: { "j:A:0": 8, "j:B:0": 9 } });
  assert.equal(outcome.conflict, true);
  assert.deepEqual(outcome.items, [
    { name: "j:A:0", stored: "3", seen: "1", mine: "2", queued: true },
    { name: "j:B:0", stored: "z", seen: "x", mine: "x", queued: false },
  ]);
  assert.equal(drafts.outgoing(store), null, "nothing queued in a stale page is sent until it is resolved");
  assert.equal(store.version, 3, "the new version is taken only with the person's choices");
});

test("a conflict cancels a pending submission: the person submits again once they chose", () => {
  const store = fresh({ "j:A:0": "1" });
  drafts.record(store, "j:A:0", "2");
  drafts.requestSubmit(store);
  drafts.adopt(store, { judgements: { "j:A:0": "3" }, version: 5 });
  assert.equal(store.submit, false);
});

test("the server's named clashes count even when the page thinks it saw the stored value", () => {
  const store = fresh({ "j:A:0": "1" });
  drafts.record(store, "j:A:0", "2");
  const answer = { judgements: { "j:A:0": "1" }, version: 5, conflicts: [{ criterion: "A", unit: 0 }] };
  assert.equal(drafts.adopt(store, answer).conflict, true);
});

test("an answer changed elsewhere and back to the value this page saw still clashes (its revision is newer)", () => {
  const store = fresh({ "j:A:0": "1" }); // read at version 3
  drafts.record(store, "j:A:0", "2");
  const answer = { judgements: [{ criterion: "A", unit: 0, value: "1" }], version: 7, revisions: [{ criterion: "A", unit: 0, revision: 6 }] };
  const outcome = drafts.adopt(store, answer);
  assert.deepEqual(outcome.items, [{ name: "j:A:0", stored: "1", seen: "1", mine: "2", queued: true }]);
  // but not when the answer was last written before what this page read
  const older = fresh({ "j:A:0": "1" });
  drafts.record(older, "j:A:0", "2");
  const unchanged = drafts.adopt(older, { ...answer, revisions: [{ criterion: "A", unit: 0, revision: 2 }] });
  assert.equal(unchanged.conflict, false);
  assert.equal(older.version, 7);
  assert.deepEqual(drafts.outgoing(older).body.judgements, [{ criterion: "A", unit: 0, value: "2", base: "1" }]);
});

test("a stale save's own answers are not taken for changes made elsewhere", () => {
  const store = fresh({ "j:A:0": "" });
  drafts.record(store, "j:A:0", "1");
  const out = drafts.outgoing(store);
  drafts.record(store, "j:A:0", "2"); // changed again while in flight
  const answer = { version: 6, stale: true, judgements: [{ criterion: "A", unit: 0, value: "1" }], revisions: [{ criterion: "A", unit: 0, revision: 6 }] };
  const outcome = drafts.confirmed(store, out, answer);
  assert.equal(outcome.conflict, false);
  assert.deepEqual(store.pending, { "j:A:0": { value: "2", base: "1" } });
});

test("the intent to submit is kept with the draft in this browser and comes back after a reload", () => {
  const store = fresh({ "j:A:0": "" });
  drafts.record(store, "j:A:0", "1");
  drafts.requestSubmit(store);
  const kept = drafts.fromStorage(drafts.toStorage(store, 1));
  const reloaded = fresh({ "j:A:0": "" });
  const outcome = drafts.restore(reloaded, kept);
  assert.deepEqual(outcome.restored, ["j:A:0"]);
  assert.equal(reloaded.submit, true);
  assert.equal(drafts.outgoing(reloaded).body.submit, true);
});

test("a submit with every answer already saved still goes out, and is done once confirmed", () => {
  const store = fresh({ "j:A:0": "1" });
  drafts.requestSubmit(store);
  const out = drafts.outgoing(store);
  assert.deepEqual([out.body.submit, out.body.judgements], [true, []]);
  drafts.confirmed(store, out, { version: 4, status: "submitted" });
  assert.equal(drafts.hasWork(store), false);
  assert.equal(drafts.toStorage(store, 1), null);
});

test("kept answers written elsewhere after the version they were kept at come back as a conflict", () => {
  const kept = { pending: { "j:A:0": { value: "2", base: "1" }, "j:B:0": { value: "y", base: "" } }, version: 3 };
  const store = drafts.createStore({ version: 6, known: { "j:A:0": "1", "j:B:0": "" } });
  const outcome = drafts.restore(store, kept, { "j:A:0": 5, "j:B:0": 2 });
  assert.deepEqual(outcome.items.map((i) => i.name), ["j:A:0"]);
  // and when the server could not be asked, every kept answer asks the person
  const blind = drafts.createStore({ version: 6, known: { "j:A:0": "1", "j:B:0": "" } });
  assert.equal(drafts.restore(blind, kept, null).items.length, 2);
});

test("kept answers whose base is no longer what is stored come back as a conflict", () => {
  const kept = { pending: { "j:A:0": { value: "2", base: "1" }, "j:B:0": { value: "y", base: "" } }, submit: true };
  const store = fresh({ "j:A:0": "3", "j:B:0": "" });
  const outcome = drafts.restore(store, kept);
  assert.equal(outcome.conflict, true);
  assert.deepEqual(outcome.items.map((i) => i.name), ["j:A:0"]);
  assert.equal(store.submit, false);
  assert.equal(drafts.outgoing(store), null);
});

test("values the server refused as invalid are dropped, the rest stays", () => {
  const store = fresh();
  drafts.record(store, "j:A:0", "9");
  const out = drafts.outgoing(store);
  drafts.record(store, "j:B:0", "1");
  drafts.dropRefused(store, out);
  assert.deepEqual(Object.keys(store.pending), ["j:B:0"]);
});

test("broken storage reads as nothing kept", () => {
  assert.equal(drafts.fromStorage("{not json"), null);
  assert.equal(drafts.fromStorage(null), null);
});

test("names are parsed to the API's criterion and unit", () => {
  assert.deepEqual(drafts.fieldOf("j:severe_error:12"), { criterion: "severe_error", unit: 12 });
  assert.throws(() => drafts.fieldOf("reordering"));
});

test("a submission refused as incomplete keeps every answer it carried, to be saved as a draft", async () => {
  const { answered } = await import("../../static/js/autosave/protocol.js");
  const store = fresh();
  drafts.record(store, "j:A:0", "1");
  drafts.requestSubmit(store);
  const out = drafts.outgoing(store);
  const outcome = answered(store, out, 400, { reason: "invalid", problems: ["S is missing"], missing: ["j:S:0"] });
  assert.equal(outcome.kind, "invalid");
  assert.equal(store.submit, false);
  assert.deepEqual(drafts.outgoing(store).body, { version: 3, judgements: [{ criterion: "A", unit: 0, value: "1", base: "" }], seconds: 0, submit: false });
});

test("a refusal for any other reason leaves the draft as it was", async () => {
  const { answered } = await import("../../static/js/autosave/protocol.js");
  for (const [status, body] of [[401, {}], [403, { reason: "removed" }], [404, { reason: "gone" }], [410, {}], [429, {}], [0, null]]) {
    const store = fresh();
    drafts.record(store, "j:A:0", "1");
    drafts.requestSubmit(store);
    answered(store, drafts.outgoing(store), status, body);
    assert.deepEqual([store.pending, store.submit], [{ "j:A:0": { value: "1", base: "" } }, true], String(status));
  }
});

test("leaving during a save sends the other answers, not those the save in flight carries with another value", () => {
  const store = fresh({ "j:A:0": "", "j:B:0": "" });
  drafts.record(store, "j:A:0", "1");
  const flying = drafts.outgoing(store);
  drafts.record(store, "j:A:0", "2");
  drafts.record(store, "j:B:0", "x");
  const body = drafts.without(drafts.outgoing(store).body, flying.body);
  assert.deepEqual(body.judgements, [{ criterion: "B", unit: 0, value: "x", base: "" }]);
});
