// Saving that never loses work, on the annotation page: the page's side of the draft (draft_store.js), its
// conflicts (conflicts.js, shown by conflict_dialog.js), the meaning of each answer (errors.js, protocol.js),
// the save loop (sending.js) and what the page says (wording.js, alerts.js). The answers are read from and
// shown on the page through ../answers.js, as the keys and the reveal read them.
// - Every change is saved at once through the API (POST /api/assignments/ID/judgements/), with the value this
//   page last saw for each answer; until confirmed it waits in localStorage, keyed by user and item, and comes
//   back after a reload or a sign-in.
// - A conflict lists every question whose stored value differs from what this page last saw, with both
//   values, and nothing is sent until the person chose answer by answer.
// - Submit is an intent kept like the answers: signed out, it waits (in this browser too) and is carried out
//   once the person signed in again.
// - Every refusal says its reason (the item released, the person removed, the study closed, ...), never
//   "no connection" unless no answer came; the answers stay on the page.
// - Once the page takes no more answers (a study's time is up: its fields are disabled), nothing is recorded.
import { answerOf, questionNamed, questionsOf, savedAnswerOf, showAnswer, takesAnswers, valueLabel } from "../answers.js";
import { AlertBox } from "./alerts.js";
import { conflictLeft, conflictShow } from "./conflict_dialog.js";
import { resolve } from "./conflicts.js";
import * as drafts from "./draft_store.js";
import { classify, isFinal } from "./errors.js";
import * as protocol from "./protocol.js";
import { Sender } from "./sending.js";
import { csrfToken, getJson, postJson, readAnswer } from "./transport.js";
import { missingLines, statusLine } from "./wording.js";

const ORDER = drafts.ORDER;
const form = document.getElementById("annotation-form");

function start() {
  const data = form.dataset;
  const readOnly = data.readOnly === "true";
  const storageKey = "dialeval:draft:" + data.user + ":" + data.item;
  const statusEl = document.getElementById("save-status");
  const alert = new AlertBox(document.getElementById("save-alert"));
  const errorsEl = document.getElementById("submit-errors");
  const signinPanel = document.getElementById("signin-panel");
  const signinForm = document.getElementById("signin-form");
  const signinStatus = document.getElementById("signin-status");
  const submitButton = document.getElementById("submit-button");
  const versionField = document.getElementById("version-field");
  const list = document.getElementById("reorder-list");

  // what the page is doing; mode: ok | checking (the session, after a 403) | signed-out | conflict | offline | final
  const page = { store: null, mode: "ok", problem: "", lastSaved: null, forbidden: 0, leaving: false, token: null };
  const timers = { poll: null, retry: null };
  const choices = {}; // an open conflict's choices, name -> "mine" | "saved"

  // ---- the page's answers (../answers.js), and the reordering's --------------------------------------------
  function names() { return questionsOf(form).map((q) => q.dataset.name).concat(list ? [ORDER] : []); }

  function showFields(values) {
    for (const [name, value] of Object.entries(values)) {
      if (name !== ORDER) showAnswer(questionNamed(form, name), value);
      else if (value && list) form.dispatchEvent(new CustomEvent("dialeval:set-order", { detail: { order: JSON.parse(value) } }));
    }
    form.dispatchEvent(new CustomEvent("dialeval:applied"));
  }

  function label(name, value) {
    if (!value) return gettext("no answer");
    if (name === ORDER) return gettext("another order");
    return valueLabel(questionNamed(form, name), value);
  }

  function describe(name) {
    if (name === ORDER) return gettext("The order of the turns");
    const q = questionNamed(form, name);
    return q ? q.dataset.label + ", " + q.dataset.where : name;
  }

  // ---- this browser's copy ---------------------------------------------------------------------------------
  function persist() {
    try {
      const kept = drafts.toStorage(page.store, Date.now());
      if (kept) localStorage.setItem(storageKey, kept);
      else localStorage.removeItem(storageKey);
    } catch (error) { /* storage disabled or full: the answers are still on the page */ }
  }

  function keptDraft() {
    try { return drafts.fromStorage(localStorage.getItem(storageKey)); } catch (error) { return null; }
  }

  // ---- the status line ---------------------------------------------------------------------------------------
  // times in UTC, written in the page's language (document.documentElement.lang)
  const clock = new Intl.DateTimeFormat(document.documentElement.lang || undefined, {
    hour: "2-digit", minute: "2-digit", second: "2-digit", hourCycle: "h23", timeZone: "UTC",
  });

  function refreshStatus() {
    if (!statusEl) return;
    statusEl.textContent = statusLine({
      mode: page.mode,
      submit: page.store.submit,
      problem: page.problem,
      working: drafts.hasWork(page.store) || sender.busy,
      savedAt: page.lastSaved ? clock.format(page.lastSaved) + " UTC" : "",
      orderProblems: list ? list.dataset.problems || "" : "",
      orderUnconfirmed: Boolean(list && list.dataset.unconfirmed),
    });
  }

  // ---- sending -------------------------------------------------------------------------------------------------
  const sender = new Sender({
    ready: () => !readOnly && page.mode === "ok",
    outgoing: () => drafts.outgoing(page.store),
    send: (out) => postJson(data.saveUrl, out.body, { csrf: csrf() }).then(readAnswer),
    answered,
    failed: offline,
    more: () => page.mode === "ok" && !page.problem && Boolean(drafts.outgoing(page.store)),
    refresh: refreshStatus,
  });
  const save = () => sender.save();
  const csrf = () => csrfToken(form, page.token);

  function record(name, value) {
    if (readOnly) return;
    drafts.record(page.store, name, value);
    page.problem = "";
    persist();
    if (page.mode === "conflict") { showConflict(); return; }
    save();
  }

  function setVersion() { versionField.value = String(page.store.version); }

  function answered(result, out) {
    const outcome = protocol.answered(page.store, out, result.status, result.json);
    setVersion();
    persist();
    const kind = outcome.kind;
    if (kind !== "ok" && out.submit) endSubmitting();
    if (kind === "ok") {
      page.forbidden = 0;
      page.problem = "";
      page.lastSaved = new Date();
      if (outcome.submitted) { submitted(); return; }
      if (outcome.conflict) conflict();
      else if (outcome.updated.length) updatedElsewhere(outcome.updated);
      return;
    }
    if (kind === "conflict") {
      if (outcome.conflict) conflict();
      else if (outcome.updated.length) updatedElsewhere(outcome.updated);
      return; // without a clash left, the save loop sends what is queued, with the new bases
    }
    if (kind === "signed-out") { signedOut(); return; }
    if (kind === "forbidden") {
      page.forbidden += 1;
      if (page.forbidden <= 2) { page.mode = "checking"; checkSession(); return; } // a new CSRF token after signing in elsewhere
      page.problem = interpolate(gettext("Not saved: the server refused the save (%(reason)s). Your answers are kept in this browser."), { reason: outcome.detail || "403" }, true);
      return;
    }
    if (kind === "invalid") {
      if (out.submit) { showProblems(outcome.problems, outcome.missing); return; }
      page.problem = interpolate(gettext("Not saved: %(problems)s"), { problems: outcome.problems.join("; ") || gettext("the server refused the values") }, true);
      return;
    }
    if (kind === "busy") {
      page.problem = gettext("Not saved yet: the server is busy. Your answers are kept in this browser and sent again shortly.");
      clearTimeout(timers.retry);
      timers.retry = setTimeout(() => { page.problem = ""; save(); }, 5000);
      return;
    }
    if (isFinal(kind)) { final(kind, outcome.detail); return; }
    offline();
  }

  // The item cannot be saved from here any more: say why and what to do; the answers stay on the page.
  function final(kind, detail) {
    page.mode = "final";
    persist();
    const keptNote = gettext("Your answers stay on this page and in this browser.");
    const queueLink = { id: "save-alert-queue", label: gettext("Go to your queue"), secondary: true, action: () => { page.leaving = true; window.location.assign(data.queueUrl); } };
    const texts = {
      submitted: [gettext("This item has been submitted (in another tab or window?): the changes made here were not saved."),
        gettext("Your answers are kept in this browser; ask the project lead to reopen the item to add them.")],
      gone: [gettext("Not saved: this item is no longer yours. It was released (for example because the time for it ran out) or the project lead took it back."),
        keptNote, gettext("Your queue shows the items you can work on now.")],
      removed: [interpolate(gettext("Not saved: %(reason)s"), { reason: detail || gettext("you are no longer a member of this project.") }, true), keptNote],
      "not-qualified": [interpolate(gettext("Not saved: %(reason)s"), { reason: detail || gettext("this item opens once you pass the project's qualification.") }, true), keptNote],
      closed: [interpolate(gettext("Not saved: %(reason)s"), { reason: detail || gettext("this study is closed or its time is over.") }, true), keptNote],
    };
    const buttons = kind === "submitted"
      ? [{ id: "reload-submitted", label: gettext("Show the submitted item"), action: reloadPage }]
      : [queueLink];
    // a study participant's clock says it in its own box (and cancels the event): not twice
    const told = kind === "closed" && !form.dispatchEvent(new CustomEvent("dialeval:closed", { detail: { detail }, cancelable: true }));
    page.problem = texts[kind][0];
    if (told) { refreshStatus(); return; }
    alert.show(texts[kind], [], buttons, kind);
    alert.focus();
    refreshStatus();
  }

  function updatedElsewhere(updated) {
    const show = {};
    for (const name of updated) show[name] = page.store.known[name];
    showFields(show);
    const n = updated.length;
    alert.note(interpolate(ngettext("%(n)s answer given in another tab or window is now shown here too.", "%(n)s answers given in another tab or window are now shown here too.", n), { n }, true));
  }

  // ---- conflicts -------------------------------------------------------------------------------------------------
  function conflict() {
    page.mode = "conflict";
    for (const name of Object.keys(choices)) delete choices[name];
    endSubmitting();
    showConflict();
    alert.focus();
  }

  function showConflict() {
    const conflictNow = page.store.conflict;
    form.querySelectorAll(".conflict").forEach((el) => el.classList.remove("conflict"));
    for (const item of conflictNow.items) {
      const q = item.name === ORDER ? list : questionNamed(form, item.name);
      if (q && item.queued) q.classList.add("conflict");
    }
    conflictShow(alert, conflictNow, choices, {
      describe,
      label,
      apply: applyChoices,
      takeAll: () => { conflictNow.items.forEach((i) => { choices[i.name] = "saved"; }); applyChoices(); },
    });
    refreshStatus();
  }

  function applyChoices() {
    const conflictNow = page.store.conflict;
    const show = resolve(page.store, choices);
    if (!show) { conflictLeft(alert, conflictNow, choices); return; }
    setVersion();
    showFields(show);
    persist();
    form.querySelectorAll(".conflict").forEach((el) => el.classList.remove("conflict"));
    alert.hide();
    page.mode = "ok";
    save();
  }

  function reloadPage() {
    page.leaving = true;
    window.location.reload();
  }

  // ---- signed out, offline -----------------------------------------------------------------------------------------
  function signedOut() {
    if (page.mode !== "signed-out") {
      page.mode = "signed-out";
      signinPanel.hidden = false;
      const password = document.getElementById("signin-password");
      if (password && !form.contains(document.activeElement)) password.focus();
    }
    persist();
    refreshStatus();
    if (!timers.poll) {
      timers.poll = setInterval(checkSession, 3000);
      checkSession(); // its 401 brings the CSRF token the sign-in form needs (the old one went with the session)
    }
  }

  function checkSession() {
    return getJson(data.draftUrl).then(readAnswer).then(
      (result) => {
        if (result.json.csrf_token) page.token = result.json.csrf_token;
        if (result.status === 200 && result.json.ok) { resumed(result.json); return; }
        const meaning = classify(result.status, result.json);
        if (meaning.kind === "signed-out") { if (page.mode !== "signed-out") signedOut(); return; }
        if (page.mode === "checking") page.mode = "ok";
        if (isFinal(meaning.kind)) { final(meaning.kind, meaning.detail); return; }
        page.problem = interpolate(gettext("Not saved: this item cannot be opened with the current sign-in (%(status)s)."), { status: result.status }, true);
        refreshStatus();
      },
      () => { if (page.mode === "checking") page.mode = "ok"; if (page.mode === "ok") offline(); });
  }

  function resumed(state) {
    page.token = state.csrf_token || page.token;
    const input = form.querySelector("input[name=csrfmiddlewaretoken]");
    if (input && page.token) input.value = page.token;
    if (timers.poll) { clearInterval(timers.poll); timers.poll = null; }
    signinPanel.hidden = true;
    if (["signed-out", "offline", "checking"].includes(page.mode)) page.mode = "ok";
    if (page.mode !== "ok") return;
    const outcome = drafts.adopt(page.store, state);
    setVersion();
    persist();
    if (outcome.conflict) { conflict(); return; }
    if (outcome.updated.length) updatedElsewhere(outcome.updated);
    save();
  }

  function offline() {
    if (page.mode === "ok") page.mode = "offline";
    refreshStatus();
    clearTimeout(timers.retry);
    timers.retry = setTimeout(back, 5000);
  }

  function back() {
    if (page.mode !== "offline") return;
    page.mode = "ok";
    save();
  }

  window.addEventListener("online", back);

  if (signinForm) {
    signinForm.addEventListener("submit", (event) => {
      event.preventDefault();
      const body = new FormData(signinForm);
      body.set("csrfmiddlewaretoken", csrf());
      body.set("next", signinForm.dataset.next);
      signinStatus.textContent = gettext("Signing in…");
      fetch(signinForm.action, { method: "POST", body, credentials: "same-origin", headers: { Accept: "application/json" } })
        .then(readAnswer).then((result) => {
          if (result.status === 200 && result.json.ok) {
            signinStatus.textContent = "";
            document.getElementById("signin-password").value = "";
            resumed(result.json);
          } else {
            signinStatus.textContent = gettext("Your username and password did not match. Please try again.");
          }
        }, () => { signinStatus.textContent = gettext("No connection; try again in a moment."); });
    });
  }

  // ---- submission ------------------------------------------------------------------------------------------------
  function gaps() {
    const found = questionsOf(form).filter((q) => answerOf(q) === "");
    if (list && !list.dataset.order) found.push(list);
    return found;
  }

  function showProblems(problems, missingNames) {
    const items = errorsEl.querySelector("ul");
    items.textContent = "";
    for (const text of problems) {
      const li = document.createElement("li");
      li.textContent = text;
      items.appendChild(li);
    }
    errorsEl.hidden = false;
    form.querySelectorAll(".missing").forEach((el) => { el.classList.remove("missing"); el.removeAttribute("aria-invalid"); });
    let first = null;
    for (const name of missingNames) {
      const q = name === ORDER ? list : questionNamed(form, name);
      if (!q) continue;
      q.classList.add("missing");
      q.setAttribute("aria-invalid", "true");
      if (!first && !q.closest("[hidden]")) first = q;
    }
    if (first) {
      const target = first === list ? list.querySelector("li[tabindex='0']") : first;
      target.focus({ preventScroll: true });
      target.scrollIntoView({ block: "center" });
    } else {
      errorsEl.focus();
    }
  }

  function missingMessage(found) {
    const questions = found.filter((q) => q !== list).map((q) => ({ label: q.dataset.label, where: q.dataset.where }));
    return missingLines(questions, found.includes(list) ? list.dataset.problems || "" : null);
  }

  function endSubmitting() {
    data.submitting = "false";
    if (submitButton) {
      submitButton.textContent = gettext("Submit");
      submitButton.disabled = Boolean(list && !list.dataset.order);
    }
  }

  function startSubmitting() {
    data.submitting = "true";
    if (submitButton) { submitButton.disabled = true; submitButton.textContent = gettext("Submitting…"); }
  }

  function submitted() {
    page.store.pending = {};
    persist();
    page.leaving = true;
    window.location.assign(data.submitUrl); // goes on to the training feedback, the next item or the queue
  }

  form.addEventListener("submit", (event) => {
    if (readOnly) return;
    event.preventDefault();
    if (data.submitting === "true" || data.timeOver === "true") return;
    const found = gaps();
    if (found.length) {
      showProblems(missingMessage(found), found.map((q) => (q === list ? ORDER : q.dataset.name)));
      return;
    }
    if (page.mode === "conflict" || page.mode === "final") { alert.bringIntoView(); return; }
    if (list && list.dataset.order) drafts.record(page.store, ORDER, list.dataset.order);
    drafts.requestSubmit(page.store);
    persist();
    if (page.mode === "signed-out") {
      refreshStatus();
      signinPanel.scrollIntoView({ block: "center" });
      document.getElementById("signin-password").focus();
      return;
    }
    startSubmitting();
    if (page.mode === "offline") page.mode = "ok";
    save();
  });

  // ---- leaving --------------------------------------------------------------------------------------------------------
  window.addEventListener("beforeunload", (event) => {
    if (readOnly || page.leaving || !Object.keys(page.store.pending).length) return;
    event.preventDefault();
    event.returnValue = "";
  });

  window.addEventListener("pagehide", () => {
    if (readOnly || page.leaving || page.mode !== "ok") return;
    const out = drafts.outgoing(page.store);
    if (!out || out.submit) return;
    // answers of the save in flight, changed again since, would clash with it: the rest goes out
    const body = sender.flying ? drafts.without(out.body, sender.flying.body) : out.body;
    if (!body.judgements.length && body.reordering === undefined) return;
    try { postJson(data.saveUrl, body, { csrf: csrf(), keepalive: true }); } catch (error) { /* nothing more can be done here */ }
  });

  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "hidden") save();
  });

  // Back/forward from the browser's memory: ask the server again (the item may have been submitted).
  window.addEventListener("pageshow", (event) => { if (event.persisted) window.location.reload(); });

  setInterval(() => {
    if (!readOnly && page.store && document.visibilityState === "visible") page.store.seconds += 1;
  }, 1000);

  // ---- start ------------------------------------------------------------------------------------------------------------
  form.addEventListener("change", (event) => {
    const q = event.target.closest("[data-question]");
    // a question that takes no answers now (the study's time is up) records nothing, whatever changed it
    if (q && takesAnswers(q) && data.timeOver !== "true") record(q.dataset.name, answerOf(q));
  });

  form.addEventListener("dialeval:reorder", (event) => {
    if (!event.detail.applied && !event.detail.initial && event.detail.order) record(ORDER, list.dataset.order);
    refreshStatus();
  });

  // answers changed before this script ran (a slow connection, a quick hand) are changes like any other
  const known = {};
  const early = {};
  for (const q of questionsOf(form)) {
    const name = q.dataset.name;
    known[name] = savedAnswerOf(q);
    if (answerOf(q) !== known[name]) early[name] = answerOf(q);
  }
  if (list) known[ORDER] = list.dataset.savedOrder ? JSON.stringify(list.dataset.savedOrder.split(",").map(Number)) : "";
  page.store = drafts.createStore({ version: data.version, known });
  const stored = keptDraft();
  if (stored) {
    const shown = new Set(names());
    for (const name of Object.keys(stored.pending)) if (!shown.has(name)) delete stored.pending[name];
  }
  if (readOnly) {
    const left = stored ? Object.keys(stored.pending).filter((name) => stored.pending[name].value !== (known[name] || "")) : [];
    if (!left.length) { persist(); return; }
    alert.show([gettext("This browser still holds answers for this item that were not saved before it was submitted:")],
      left.map((name) => describe(name) + ": " + label(name, stored.pending[name].value)),
      [{ id: "discard-kept", label: gettext("Discard them"), secondary: true, action: () => { try { localStorage.removeItem(storageKey); } catch (error) { /* nothing kept */ } alert.hide(); } }]);
    return;
  }
  // kept at an older version: what was written since decides which kept answers clash (asked of the server)
  if (stored && Number(stored.version) < page.store.version) {
    getJson(data.draftUrl).then(readAnswer).then(
      (result) => carryOn(stored, result.status === 200 && result.json.ok ? drafts.revisionsOf(result.json) : null),
      () => carryOn(stored, null));
  } else {
    carryOn(stored, {});
  }

  function carryOn(kept, revisions) {
    const outcome = drafts.restore(page.store, kept, revisions);
    const restoredValues = {};
    for (const name of outcome.restored) restoredValues[name] = page.store.pending[name].value;
    showFields(restoredValues);
    for (const [name, value] of Object.entries(early)) if (!page.store.pending[name]) drafts.record(page.store, name, value);
    persist();
    if (outcome.conflict) { conflict(); return; }
    if (outcome.restored.length) {
      alert.note(page.store.submit
        ? gettext("Answers kept in this browser that had not reached the server are back on the page, and the item you asked to submit is being submitted.")
        : gettext("Answers kept in this browser that had not reached the server are back on the page and are being saved."));
    }
    if (page.store.submit) startSubmitting();
    save();
    refreshStatus();
  }
}

if (form) start();
