// The page's draft: what the server holds as far as this page knows (`known`), the answers changed here
// and not yet confirmed (`pending`, each with the value seen before it: its base), whether the person
// asked to submit (`submit`), and an unresolved conflict (`conflict`, see conflicts.js). No DOM, no
// network: the view (view.js) feeds it what the person does and what the server answers, and sends
// what `outgoing` returns. Answers are named as the page's fields: "j:KEY:UNIT", and "reordering"
// (its value the shown order as JSON).
//
// The rule it keeps: nothing is sent while a conflict is unresolved, and every answer goes out with the
// value this page last saw there, so the server never writes it over a value the person has not seen.

export const ORDER = "reordering";

/** A new draft from the state the page was rendered with: `known` maps field names to stored values. */
export function createStore({ version, known = {} }) {
  return { version: Number(version), known: { ...known }, pending: {}, submit: false, conflict: null, seconds: 0 };
}

function seen(store, name) {
  return store.known[name] ?? "";
}

/**
 * The person gave `value` to `name`. Returns whether anything is left to send for it. An answer changed
 * back to the value seen is still sent: in a stale page that value may no longer be what is stored, and
 * the person's last choice must not give way unseen to another tab's.
 */
export function record(store, name, value) {
  const entry = store.pending[name];
  if (entry) {
    entry.value = value;
  } else if (value !== seen(store, name)) {
    store.pending[name] = { value, base: seen(store, name) };
  }
  if (store.conflict) {
    const item = store.conflict.items.find((i) => i.name === name);
    if (item) {
      item.mine = value;
      item.queued = true;
    }
  }
  return Boolean(store.pending[name]);
}

/** The person pressed Submit: the intent is kept (and stored with the draft) until the server took it. */
export function requestSubmit(store) {
  store.submit = true;
}

export function hasWork(store) {
  return Object.keys(store.pending).length > 0 || store.submit;
}

/** Splits "j:KEY:UNIT" into the API's criterion and unit. */
export function fieldOf(name) {
  const match = /^j:(.+):(\d+)$/.exec(name);
  if (!match) throw new Error("not an answer's name: " + name);
  return { criterion: match[1], unit: Number(match[2]) };
}

/** What to send now, as the API's body (JudgementsIn), or null: nothing to send, or a conflict open. */
export function outgoing(store) {
  if (store.conflict || !hasWork(store)) return null;
  const sent = {};
  const body = { version: store.version, judgements: [], seconds: store.seconds, submit: store.submit };
  for (const [name, entry] of Object.entries(store.pending)) {
    sent[name] = { value: entry.value, base: entry.base };
    if (name === ORDER) {
      body.reordering = JSON.parse(entry.value);
      body.reordering_base = entry.base ? JSON.parse(entry.base) : null;
    } else {
      body.judgements.push({ ...fieldOf(name), value: entry.value, base: entry.base });
    }
  }
  return { sent, submit: store.submit, seconds: store.seconds, body };
}

/** The stored answers of a server's answer, by field name: the API's list or the page's object. */
export function storedOf(answer) {
  const stored = {};
  if (Array.isArray(answer.judgements)) {
    for (const j of answer.judgements) stored["j:" + j.criterion + ":" + j.unit] = j.value;
  } else {
    Object.assign(stored, answer.judgements || {});
  }
  stored[ORDER] = answer.reordering ? JSON.stringify(answer.reordering) : "";
  return stored;
}

/** The version that last wrote (or removed) each answer, by field name: the API's list or the page's object. */
export function revisionsOf(answer) {
  if (!Array.isArray(answer.revisions)) return { ...(answer.revisions || {}) };
  const revisions = {};
  for (const r of answer.revisions) revisions["j:" + r.criterion + ":" + r.unit] = r.revision;
  if (answer.reordering_revision !== undefined) revisions[ORDER] = answer.reordering_revision;
  return revisions;
}

/** The server stored `out` (a 200). Returns `adopt`'s result when it had been saved elsewhere too. */
export function confirmed(store, out, answer) {
  const since = store.version;
  for (const [name, sent] of Object.entries(out.sent)) {
    store.known[name] = sent.value;
    const entry = store.pending[name];
    if (entry && entry.value === sent.value) delete store.pending[name];
    else if (entry) entry.base = sent.value;
  }
  store.seconds = Math.max(0, store.seconds - out.seconds);
  if (out.submit) store.submit = false;
  if (answer.stale && answer.judgements !== undefined) {
    return adopt(store, answer, { since, ours: new Set(Object.keys(out.sent)) });
  }
  store.version = answer.version; // nobody else saved in between: what this page knows is the stored state
  return { conflict: false, updated: [], items: [] };
}

/**
 * Compares everything stored (the server's `answer`: its values, their revisions and its version) with
 * what this page last saw, as of `since` (its version, by default). An answer changed here clashes when
 * it was written or removed elsewhere after `since` (even back to the value seen), or its stored value
 * is not its base, or the server named it (`clashing`, a 409's conflicts); answers this very save wrote
 * (`ours`) are not "elsewhere". With a clash, every question whose stored value differs from what this
 * page saw becomes an item of one conflict, and nothing is sent until the person chose (conflicts.js).
 * Without one the other answers are taken (`updated`: the fields to show anew) and the version with them.
 */
export function adopt(store, answer, { since = store.version, ours = new Set(), clashing = clashingOf(answer) } = {}) {
  const stored = storedOf(answer);
  const revisions = revisionsOf(answer);
  const names = new Set([...Object.keys(store.known), ...Object.keys(stored), ...Object.keys(store.pending)]);
  const items = [];
  for (const name of names) {
    const theirs = stored[name] ?? "";
    const entry = store.pending[name];
    if (entry) {
      const writtenSince = !ours.has(name) && (revisions[name] ?? 0) > since;
      if (entry.value === theirs) {
        // the same value: still sent (as seen), so that the person's later choice outranks older queued ones
        entry.base = theirs;
        store.known[name] = theirs;
      } else if (writtenSince || entry.base !== theirs || clashing.has(name)) {
        items.push({ name, stored: theirs, seen: entry.base, mine: entry.value, queued: true });
      } else {
        store.known[name] = theirs;
      }
    } else if (seen(store, name) !== theirs) {
      items.push({ name, stored: theirs, seen: seen(store, name), mine: seen(store, name), queued: false });
    }
  }
  if (items.some((i) => i.queued)) {
    store.conflict = { items, version: answer.version };
    store.submit = false; // the person looks at the differences first, then submits again
    return { conflict: true, updated: [], items };
  }
  for (const item of items) store.known[item.name] = item.stored;
  store.version = answer.version;
  return { conflict: false, updated: items.map((i) => i.name), items };
}

/** The names the server's 409 says clash (`conflicts`), whatever this page thinks it saw. */
export function clashingOf(answer) {
  return new Set((answer.conflicts || []).map((c) => (c.criterion ? "j:" + c.criterion + ":" + c.unit : ORDER)));
}

/**
 * Answers this browser kept (localStorage) put back after a reload or a sign-in. A kept answer clashes
 * when what the server holds now is not its base, or was written after the version it was kept at
 * (`revisions`: by name; null when they could not be asked, and the item has changed since: then every
 * kept answer asks the person).
 */
export function restore(store, kept, revisions = {}) {
  const items = [];
  const restored = [];
  const keptAt = kept && kept.version !== undefined ? Number(kept.version) : store.version;
  for (const [name, entry] of Object.entries((kept && kept.pending) || {})) {
    const theirs = seen(store, name);
    store.pending[name] = { value: entry.value, base: entry.value === theirs ? theirs : entry.base };
    if (entry.value === theirs) continue; // sent again all the same: a choice made later than others' queued ones
    restored.push(name);
    const writtenSince = revisions === null ? keptAt < store.version : (revisions[name] ?? 0) > keptAt;
    if (entry.base !== theirs || writtenSince) {
      items.push({ name, stored: theirs, seen: entry.base, mine: entry.value, queued: true });
    }
  }
  if (items.length) store.conflict = { items, version: store.version };
  else if (kept && kept.submit) store.submit = true;
  return { restored, conflict: items.length > 0, items };
}

/** What this browser keeps for the item (null: nothing), as JSON for localStorage. */
export function toStorage(store, now) {
  if (!hasWork(store)) return null;
  return JSON.stringify({ pending: store.pending, version: store.version, submit: store.submit, kept: now });
}

export function fromStorage(text) {
  try {
    const kept = JSON.parse(text || "null");
    return kept && typeof kept.pending === "object" && kept.pending ? kept : null;
  } catch (error) {
    return null;
  }
}

/** The server refused values of `out` as invalid (400): they are dropped so that the rest can be saved. */
export function dropRefused(store, out) {
  for (const [name, sent] of Object.entries(out.sent)) {
    const entry = store.pending[name];
    if (entry && entry.value === sent.value) delete store.pending[name];
  }
  if (out.submit) store.submit = false;
}

/** `body` without the answers that `other` (a save still in flight) sends with another value. */
export function without(body, other) {
  const theirs = new Map(other.judgements.map((j) => [j.criterion + ":" + j.unit, j.value]));
  const out = { ...body, judgements: body.judgements.filter((j) => !theirs.has(j.criterion + ":" + j.unit) || theirs.get(j.criterion + ":" + j.unit) === j.value) };
  if (other.reordering !== undefined && JSON.stringify(other.reordering) !== JSON.stringify(body.reordering)) {
    delete out.reordering;
    delete out.reordering_base;
  }
  return out;
}
