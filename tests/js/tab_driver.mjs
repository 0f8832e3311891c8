// Drives the page's own draft modules (static/js/autosave/) for tests/annotator/test_save_property.py:
// one JSON command per line on stdin, one JSON answer per line on stdout. The Python side does the HTTP
// against the live server; this side keeps each tab's draft exactly as the page does.
import { createInterface } from "node:readline";
import * as drafts from "../../static/js/autosave/draft_store.js";
import { resolve } from "../../static/js/autosave/conflicts.js";
import { answered } from "../../static/js/autosave/protocol.js";

const tabs = new Map();
const inFlight = new Map();

function view(store) {
  return { version: store.version, known: store.known, pending: store.pending, submit: store.submit, conflict: store.conflict };
}

const commands = {
  // a tab opened (or reloaded) on the state the server rendered, with what this browser kept
  open({ tab, version, known, kept, revisions }) {
    const store = drafts.createStore({ version, known });
    tabs.set(tab, store);
    return drafts.restore(store, kept, revisions);
  },
  record({ tab, name, value }) {
    return { queued: drafts.record(tabs.get(tab), name, value) };
  },
  submit({ tab }) {
    drafts.requestSubmit(tabs.get(tab));
    return {};
  },
  outgoing({ tab }) {
    const out = drafts.outgoing(tabs.get(tab));
    inFlight.set(tab, out);
    return out && out.body;
  },
  answered({ tab, status, body }) {
    return answered(tabs.get(tab), inFlight.get(tab), status, body);
  },
  // signed in again: the page takes the server's state (the draft URL's GET)
  resume({ tab, state }) {
    return drafts.adopt(tabs.get(tab), state);
  },
  resolve({ tab, choices }) {
    return { show: resolve(tabs.get(tab), choices) };
  },
  storage({ tab }) {
    return { kept: drafts.toStorage(tabs.get(tab), 0) };
  },
  state({ tab }) {
    return view(tabs.get(tab));
  },
};

const lines = createInterface({ input: process.stdin });
lines.on("line", (line) => {
  const command = JSON.parse(line);
  let reply;
  try {
    reply = { ok: true, result: commands[command.op](command) ?? null };
  } catch (error) {
    reply = { ok: false, error: String(error && error.stack ? error.stack : error) };
  }
  process.stdout.write(JSON.stringify(reply) + "\n");
});
