// What a save's answer does to the draft, for the page (view.js) and its tests alike: the one place
// where a 200, a 409 or a refusal changes what is known, queued and asked to submit.
import { classify } from "./errors.js";
import { adopt, confirmed, dropRefused } from "./draft_store.js";

/**
 * Applies the server's answer (`status`, JSON `body`) to the save `out` that `outgoing` gave. Returns the
 * answer's meaning (errors.js) with, for a 200 or a conflict, `adopt`'s outcome, and `submitted` once
 * the item is submitted. A refusal for any other reason leaves the draft as it was (the answers stay).
 */
export function answered(store, out, status, body) {
  body = body || {};
  const meaning = classify(status, body);
  if (meaning.kind === "ok") {
    const outcome = confirmed(store, out, body);
    return { ...meaning, ...outcome, submitted: Boolean(out.submit && body.status === "submitted") };
  }
  if (meaning.kind === "conflict") return { ...meaning, ...adopt(store, body) };
  if (meaning.kind === "invalid") {
    // a submission refused as incomplete keeps every answer (they are saved as a draft next); values
    // refused as invalid are dropped so that the rest can be saved
    if (out.submit) store.submit = false;
    else dropRefused(store, out);
  }
  return { ...meaning, conflict: false, updated: [], items: [], submitted: false };
}
