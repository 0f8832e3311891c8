// What a save's answer means for the page, from its HTTP status and the `reason` of its JSON body
// (api.views.assignments.AssignmentJudgements). A status is never taken for a lost connection: only a
// request that got no answer at all is "offline".

/**
 * kind: "ok" | "offline" | "signed-out" | "forbidden" (403 without a reason: an old CSRF token, asked
 * again once) | "removed" | "not-qualified" | "gone" (404) | "closed" (410) | "conflict" | "submitted" |
 * "invalid" | "busy" (429, 5xx: tried again later). `detail`: the server's own words (translated), if any.
 */
export function classify(status, body) {
  body = body || {};
  const detail = body.detail || (body.problems || []).join("; ") || "";
  const kind = (() => {
    if (status === 0) return "offline";
    if (status >= 200 && status < 300) return "ok";
    if (status === 401) return "signed-out";
    if (status === 403) {
      if (body.reason === "removed") return "removed";
      if (body.reason === "not_qualified") return "not-qualified";
      return "forbidden";
    }
    if (status === 404) return "gone";
    if (status === 410) return "closed";
    if (status === 409) return body.reason === "conflict" ? "conflict" : "submitted";
    if (status === 400) return "invalid";
    return "busy";
  })();
  return { kind, detail, problems: body.problems || [], missing: body.missing || [], retry: kind === "busy" || kind === "offline" };
}

/** Kinds after which the item cannot be saved from this page any more (the answers stay shown). */
export function isFinal(kind) {
  return ["removed", "not-qualified", "gone", "closed", "submitted"].includes(kind);
}
