// node --test: the annotation page's save loop (static/js/autosave/sending.js) with a fake server.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as drafts from "../../static/js/autosave/draft_store.js";
import { answered } from "../../static/js/autosave/protocol.js";
import { Sender } from "../../static/js/autosave/sending.js";

function page(store, server) {
  const sent = [];
  let open = 0;
  let most = 0;
  const loop = new Sender({
    ready: () => !store.conflict,
    outgoing: () => drafts.outgoing(store),
    send: (out) => {
      sent.push(out.body);
      open += 1;
      most = Math.max(most, open);
      return server(out).finally(() => { open -= 1; });
    },
    answered: (result, out) => answered(store, out, result.status, result.json),
    failed: () => {},
    more: () => Boolean(drafts.outgoing(store)),
    refresh: () => {},
  });
  return { loop, sent, most: () => most };
}

function okServer() {
  let version = 1;
  return (out) => new Promise((done) => setTimeout(() => {
    version += 1;
    done({ status: 200, json: { ok: true, version, status: "in_progress" } });
  }, 5));
}

test("answers given while a save is in flight go out after it, never two saves at once", async () => {
  const store = drafts.createStore({ version: 1, known: {} });
  const { loop, sent, most } = page(store, okServer());
  drafts.record(store, "j:A:0", "1");
  const first = loop.save();
  drafts.record(store, "j:S:0", "2");
  loop.save();
  drafts.record(store, "j:A:0", "3");
  loop.save();
  await first;
  assert.equal(most(), 1);
  assert.deepEqual(sent.map((body) => body.judgements.map((j) => [j.criterion, j.value]).sort()), [[["A", "1"]], [["A", "3"], ["S", "2"]]]);
  assert.equal(drafts.outgoing(store), null);
  assert.equal(loop.busy, false);
});

test("no answer at all keeps everything queued for the next try", async () => {
  const store = drafts.createStore({ version: 1, known: {} });
  let failures = 0;
  const { loop } = page(store, () => Promise.reject(new Error("offline")));
  loop.page.failed = () => { failures += 1; };
  loop.page.more = () => false;
  drafts.record(store, "j:A:0", "1");
  await loop.save();
  assert.equal(failures, 1);
  assert.deepEqual(drafts.outgoing(store).body.judgements, [{ criterion: "A", unit: 0, value: "1", base: "" }]);
});
