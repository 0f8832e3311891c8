// node --test: every save error has its own meaning (static/js/autosave/errors.js).
import { test } from "node:test";
import assert from "node:assert/strict";
import { classify, isFinal } from "../../static/js/autosave/errors.js";

test("a status is never taken for a lost connection", () => {
  const kinds = [
    [401, {}, "signed-out"],
    [403, { reason: "removed", detail: "You are no longer a member" }, "removed"],
    [403, { reason: "not_qualified" }, "not-qualified"],
    [403, { detail: "CSRF Failed" }, "forbidden"],
    [404, { reason: "gone" }, "gone"],
    [409, { reason: "conflict" }, "conflict"],
    [409, { reason: "submitted" }, "submitted"],
    [410, { detail: "This study is closed." }, "closed"],
    [400, { reason: "invalid", problems: ["bad"] }, "invalid"],
    [429, {}, "busy"],
    [502, {}, "busy"],
  ];
  for (const [status, body, kind] of kinds) assert.equal(classify(status, body).kind, kind, String(status));
  assert.equal(classify(0, null).kind, "offline");
});

test("the server's own words are kept for the page", () => {
  assert.equal(classify(410, { detail: "The time for this study is over." }).detail, "The time for this study is over.");
  assert.equal(classify(400, { problems: ["a", "b"] }).detail, "a; b");
});

test("an item that cannot be saved any more is final; a conflict or a busy server is not", () => {
  assert.deepEqual(["gone", "removed", "closed", "submitted", "conflict", "busy"].map(isFinal), [true, true, true, true, false, false]);
});
