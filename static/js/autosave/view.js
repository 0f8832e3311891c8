// Saving that never loses work, on the annotation page: the DOM and the network around the draft
// (draft_store.js), its conflicts (conflicts.js) and the meaning of each answer (errors.js).
// - Every change is saved at once through the API (POST /api/assignments/ID/judgements/, the scripts'
//   protocol), with the value this page last saw for each answer; until confirmed it waits in
//   localStorage, keyed by user and item, and comes back after a reload or a sign-in.
// - A conflict lists every question whose stored value differs from what this page last saw, with both
//   values, and nothing is sent until the person chose answer by answer.
// - Submit is an intent kept like the answers: signed out, it waits (in this browser too) and is
//   carried out once the person signed in again.
// - Every refusal says its reason (the item released, the person removed, the study closed, ...), never
//   "no connection" unless no answer came; the answers stay on the page.
import { classify, isFinal } from "./errors.js";
import { resolve, unchosen } from "./conflicts.js";
import * as drafts from "./draft_store.js";
import * as protocol from "./protocol.js";

const ORDER = drafts.ORDER;
const form = document.getElementById("annotation-form");

function start() {
  const readOnly = form.dataset.readOnly === "true";
  const saveUrl = form.dataset.saveUrl;
  const draftUrl = form.dataset.draftUrl;
  const submitUrl = form.dataset.submitUrl;
  const storageKey = "dialeval:draft:" + form.dataset.user + ":" + form.dataset.item;
  const statusEl = document.getElementById("save-status");
  const alertEl = document.getElementById("save-alert");
  const errorsEl = document.getElementById("submit-errors");
  const signinPanel = document.getElementById("signin-panel");
  const signinForm = document.getElementById("signin-form");
  const signinStatus = document.getElementById("signin-status");
  const submitButton = document.getElementById("submit-button");
  const versionField = document.getElementById("version-field");
  const list = document.getElementById("reorder-list");

  let store = null;
  let mode = "ok"; // ok | checking (the session, after a 403) | signed-out | conflict | offline | final
  let inFlight = null;
  let flying = null; // the save in flight (its body), while inFlight
  let again = false;
  let lastSaved = null;
  let problem = "";
  let pollTimer = null;
  let retryTimer = null;
  let forbidden = 0;
  let leaving = false;
  let token = null;

  // ---- the page's answers ----------------------------------------------------------------------------
  function questions() { return Array.from(form.querySelectorAll("[data-question]")); }
  function question(name) { return form.querySelector('[data-question][data-name="' + name + '"]'); }
  function names() { return questions().map((q) => q.dataset.name).concat(list ? [ORDER] : []); }

  function fieldValue(name) {
    if (name === ORDER) return list ? list.dataset.order || "" : "";
    const q = question(name);
    if (!q) return "";
    const select = q.querySelector("select");
    if (select) return select.value;
    const checked = q.querySelector("input[type=radio]:checked");
    return checked ? checked.value : "";
  }

  // What the server rendered for a question (its stored answer), whatever was changed since.
  function savedValue(name) {
    const q = question(name);
    if (!q) return "";
    const select = q.querySelector("select");
    if (select) {
      const chosen = Array.prototype.find.call(select.options, (o) => o.defaultSelected);
      return chosen ? chosen.value : (select.options.length ? select.options[0].value : "");
    }
    const checked = Array.prototype.find.call(q.querySelectorAll("input[type=radio]"), (r) => r.defaultChecked);
    return checked ? checked.value : "";
  }

  function setField(name, value) {
    if (name === ORDER) {
      if (value && list) form.dispatchEvent(new CustomEvent("dialeval:set-order", { detail: { order: JSON.parse(value) } }));
      return;
    }
    const q = question(name);
    if (!q) return;
    const select = q.querySelector("select");
    if (select) select.value = value;
    else q.querySelectorAll("input[type=radio]").forEach((radio) => { radio.checked = radio.value === value; });
  }

  function showFields(values) {
    Object.entries(values).forEach(([name, value]) => setField(name, value));
    form.dispatchEvent(new CustomEvent("dialeval:applied"));
  }

  function choiceLabel(name, value) {
    if (!value) return gettext("no answer");
    if (name === ORDER) return gettext("another order");
    const q = question(name);
    const select = q && q.querySelector("select");
    if (select) {
      const option = Array.from(select.options).find((o) => o.value === value);
      return option ? option.textContent : value;
    }
    const radio = q && Array.from(q.querySelectorAll("input[type=radio]")).find((r) => r.value === value);
    if (!radio) return value;
    const shown = radio.parentNode.querySelector(".choice-label");  // the value's label, without its key cap
    if (shown) return shown.textContent.trim();
    return Array.from(radio.parentNode.childNodes)
      .filter((node) => node.nodeType === Node.TEXT_NODE)
      .map((node) => node.textContent).join("").trim();
  }

  function describe(name) {
    if (name === ORDER) return gettext("The order of the turns");
    const q = question(name);
    return q ? q.dataset.label + ", " + q.dataset.where : name;
  }

  function joined(items) {
    if (items.length > 6) return interpolate(gettext("%(first)s and %(more)s more"), { first: items.slice(0, 6).join(gettext(", ")), more: items.length - 6 }, true);
    if (items.length <= 1) return items.join("");
    return interpolate(gettext("%(first)s and %(last)s"), { first: items.slice(0, -1).join(gettext(", ")), last: items[items.length - 1] }, true);
  }

  // ---- this browser's copy ---------------------------------------------------------------------------
  function persist() {
    try {
      const kept = drafts.toStorage(store, Date.now());
      if (kept) localStorage.setItem(storageKey, kept);
      else localStorage.removeItem(storageKey);
    } catch (error) { /* storage disabled or full: the answers are still on the page */ }
  }

  function kept() {
    try { return drafts.fromStorage(localStorage.getItem(storageKey)); } catch (error) { return null; }
  }

  // ---- messages --------------------------------------------------------------------------------------
  // times in UTC, written in the page's language (document.documentElement.lang)
  const clock = new Intl.DateTimeFormat(document.documentElement.lang || undefined, {
    hour: "2-digit", minute: "2-digit", second: "2-digit", hourCycle: "h23", timeZone: "UTC",
  });
  function utcTime(date) { return clock.format(date) + " UTC"; }

  function refreshStatus() {
    if (!statusEl) return;
    let text;
    const order = list ? list.dataset.problems || "" : "";
    if (mode === "signed-out" && store.submit) text = gettext("Not submitted yet: you were signed out. Your answers are kept in this browser, and the item is submitted once you sign in again.");
    else if (mode === "signed-out") text = gettext("Not saved: you were signed out. Your answers are kept in this browser.");
    else if (mode === "conflict") text = gettext("Not saved: this item was changed in another tab or window (see above).");
    else if (mode === "checking") text = gettext("Saving… (checking the sign-in)");
    else if (mode === "offline") text = gettext("Not saved yet (no connection): your answers are kept in this browser and sent when the connection is back.");
    else if (problem) text = problem;
    else if (drafts.hasWork(store) || inFlight) text = store.submit ? gettext("Submitting…") : gettext("Saving…");
    // the bar stays one short line: why the order is not an answer yet is said beside the list (#reorder-status)
    else if (order) text = lastSaved ? interpolate(gettext("Answers saved at %(time)s; the order is not valid yet."), { time: utcTime(lastSaved) }, true) : gettext("The order is not valid yet.");
    else if (list && list.dataset.unconfirmed) text = lastSaved ? interpolate(gettext("Answers saved at %(time)s; the order is not confirmed yet."), { time: utcTime(lastSaved) }, true) : gettext("The order is not confirmed yet.");
    else text = lastSaved ? interpolate(gettext("Draft saved at %(time)s"), { time: utcTime(lastSaved) }, true) : "";
    statusEl.textContent = text;
  }

  function element(tag, text, className) {
    const el = document.createElement(tag);
    if (text) el.textContent = text;
    if (className) el.className = className;
    return el;
  }

  function buttonsRow(buttons) {
    const p = element("p", "", "alert-actions");
    buttons.forEach((b) => {
      const button = element("button", b.label, b.secondary ? "secondary" : "");
      button.type = "button";
      button.id = b.id;
      button.addEventListener("click", b.action);
      p.appendChild(button);
    });
    return p;
  }

  function showAlert(paragraphs, items, buttons) {
    alertEl.textContent = "";
    alertEl.dataset.kind = "";
    paragraphs.forEach((text) => alertEl.appendChild(element("p", text)));
    if (items && items.length) {
      const ul = element("ul");
      items.forEach((text) => ul.appendChild(element("li", text)));
      alertEl.appendChild(ul);
    }
    if (buttons && buttons.length) alertEl.appendChild(buttonsRow(buttons));
    alertEl.hidden = false;
  }

  function hideAlert() { alertEl.hidden = true; alertEl.textContent = ""; }

  // ---- sending -----------------------------------------------------------------------------------------
  function record(name, value) {
    if (readOnly) return;
    drafts.record(store, name, value);
    problem = "";
    persist();
    if (mode === "conflict") { showConflict(); return; }
    save();
  }

  function csrf() {
    const match = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
    if (match) return decodeURIComponent(match[1]);
    if (token) return token;
    const input = form.querySelector("input[name=csrfmiddlewaretoken]");
    return input ? input.value : "";
  }

  function post(url, data, keepalive) {
    return fetch(url, {
      method: "POST",
      credentials: "same-origin",
      keepalive: Boolean(keepalive),
      headers: { "Content-Type": "application/json", Accept: "application/json", "X-CSRFToken": csrf() },
      body: JSON.stringify(data),
    });
  }

  function answer(response) {
    const type = response.headers.get("Content-Type") || "";
    if (type.indexOf("application/json") === -1) return Promise.resolve({ status: response.status, json: {} });
    return response.json().then(
      (json) => ({ status: response.status, json: json }),
      () => ({ status: response.status, json: {} }));
  }

  function save() {
    if (readOnly || mode !== "ok") { refreshStatus(); return Promise.resolve(); }
    if (inFlight) { again = true; return inFlight; }
    const out = drafts.outgoing(store);
    if (!out) { refreshStatus(); return Promise.resolve(); }
    flying = out;
    inFlight = post(saveUrl, out.body).then(answer).then(
      (result) => { inFlight = null; flying = null; answered(result, out); },
      () => { inFlight = null; flying = null; offline(); });
    refreshStatus();
    inFlight = inFlight.then(() => {
      refreshStatus();
      const more = again || (mode === "ok" && !problem && drafts.outgoing(store));
      again = false;
      if (more && mode === "ok") return save();
      return null;
    });
    return inFlight;
  }

  function setVersion() { versionField.value = String(store.version); }

  function answered(result, out) {
    const outcome = protocol.answered(store, out, result.status, result.json);
    setVersion();
    persist();
    const kind = outcome.kind;
    if (kind !== "ok" && out.submit) endSubmitting();
    if (kind === "ok") {
      forbidden = 0;
      problem = "";
      lastSaved = new Date();
      if (outcome.submitted) { submitted(); return; }
      if (outcome.conflict) conflict();
      else if (outcome.updated.length) updatedElsewhere(outcome.updated);
      return;
    }
    if (kind === "conflict") {
      if (outcome.conflict) conflict();
      else if (outcome.updated.length) updatedElsewhere(outcome.updated);
      return; // without a clash left, the loop in save() sends what is queued, with the new bases
    }
    if (kind === "signed-out") { signedOut(); return; }
    if (kind === "forbidden") {
      forbidden += 1;
      if (forbidden <= 2) { mode = "checking"; checkSession(); return; } // a new CSRF token after signing in elsewhere
      problem = interpolate(gettext("Not saved: the server refused the save (%(reason)s). Your answers are kept in this browser."), { reason: outcome.detail || "403" }, true);
      return;
    }
    if (kind === "invalid") {
      if (out.submit) { showProblems(outcome.problems, outcome.missing); return; }
      problem = interpolate(gettext("Not saved: %(problems)s"), { problems: outcome.problems.join("; ") || gettext("the server refused the values") }, true);
      return;
    }
    if (kind === "busy") {
      problem = gettext("Not saved yet: the server is busy. Your answers are kept in this browser and sent again shortly.");
      clearTimeout(retryTimer);
      retryTimer = setTimeout(() => { problem = ""; save(); }, 5000);
      return;
    }
    if (isFinal(kind)) { final(kind, outcome.detail); return; }
    offline();
  }

  // The item cannot be saved from here any more: say why and what to do; the answers stay on the page.
  function final(kind, detail) {
    mode = "final";
    persist();
    const keptNote = gettext("Your answers stay on this page and in this browser.");
    const queueLink = { id: "save-alert-queue", label: gettext("Go to your queue"), secondary: true, action: () => { leaving = true; window.location.assign(form.dataset.queueUrl); } };
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
    problem = texts[kind][0];
    if (told) { refreshStatus(); return; }
    showAlert(texts[kind], [], buttons);
    alertEl.dataset.kind = kind;
    alertEl.focus();
    refreshStatus();
  }

  function updatedElsewhere(updated) {
    const show = {};
    updated.forEach((name) => { show[name] = store.known[name]; });
    showFields(show);
    const n = updated.length;
    showAlert([interpolate(ngettext("%(n)s answer given in another tab or window is now shown here too.", "%(n)s answers given in another tab or window are now shown here too.", n), { n: n }, true)],
      [], [{ id: "dismiss-note", label: gettext("OK"), secondary: true, action: hideAlert }]);
  }

  // ---- conflicts -----------------------------------------------------------------------------------------
  const choices = {};

  function conflict() {
    mode = "conflict";
    Object.keys(choices).forEach((name) => delete choices[name]);
    endSubmitting();
    showConflict();
    alertEl.focus();
  }

  function showConflict() {
    const items = store.conflict.items;
    form.querySelectorAll(".conflict").forEach((el) => el.classList.remove("conflict"));
    items.forEach((item) => {
      const q = item.name === ORDER ? list : question(item.name);
      if (q && item.queued) q.classList.add("conflict");
    });
    alertEl.textContent = "";
    alertEl.dataset.kind = "conflict";
    alertEl.appendChild(element("p", gettext("Not saved: this item was changed in another tab or window since this page last saw it. Nothing was overwritten, and nothing from this page is sent until you choose, answer by answer, which value to keep.")));
    const ul = element("ul", "", "conflicts");
    items.forEach((item, index) => {
      const li = element("li");
      li.dataset.conflict = item.name;
      li.appendChild(element("p", interpolate(gettext("%(question)s: %(theirs)s saved in another tab or window, %(yours)s here"), { question: describe(item.name), theirs: choiceLabel(item.name, item.stored), yours: choiceLabel(item.name, item.mine) }, true)));
      const chosen = choices[item.name] || (item.queued ? null : "saved");
      [["mine", interpolate(gettext("Keep mine: %(value)s"), { value: choiceLabel(item.name, item.mine) }, true)],
        ["saved", interpolate(gettext("Take the saved one: %(value)s"), { value: choiceLabel(item.name, item.stored) }, true)]].forEach(([value, text]) => {
        const label = element("label", "", "conflict-choice");
        const input = element("input");
        input.type = "radio";
        input.name = "conflict-" + index;
        input.value = value;
        input.checked = chosen === value;
        input.addEventListener("change", () => { choices[item.name] = value; refreshChoices(); });
        label.appendChild(input);
        label.appendChild(document.createTextNode(" " + text));
        li.appendChild(label);
      });
      ul.appendChild(li);
    });
    alertEl.appendChild(ul);
    alertEl.appendChild(buttonsRow([
      { id: "conflict-apply", label: gettext("Save my choices"), action: applyChoices },
      { id: "conflict-all-saved", label: gettext("Take all saved answers"), secondary: true, action: () => { items.forEach((i) => { choices[i.name] = "saved"; }); applyChoices(); } },
    ]));
    alertEl.appendChild(element("p", "", "conflict-status"));
    alertEl.hidden = false;
    refreshChoices();
    refreshStatus();
  }

  function refreshChoices() {
    const left = unchosen(store.conflict, choices);
    const status = alertEl.querySelector(".conflict-status");
    if (status) status.textContent = left.length ? interpolate(ngettext("Choose a value for %(n)s more answer.", "Choose a value for %(n)s more answers.", left.length), { n: left.length }, true) : "";
  }

  function applyChoices() {
    const show = resolve(store, choices);
    if (!show) { refreshChoices(); return; }
    setVersion();
    showFields(show);
    persist();
    form.querySelectorAll(".conflict").forEach((el) => el.classList.remove("conflict"));
    hideAlert();
    mode = "ok";
    save();
  }

  function reloadPage() {
    leaving = true;
    window.location.reload();
  }

  // ---- signed out, offline -----------------------------------------------------------------------------
  function signedOut() {
    if (mode !== "signed-out") {
      mode = "signed-out";
      signinPanel.hidden = false;
      const password = document.getElementById("signin-password");
      if (password && !form.contains(document.activeElement)) password.focus();
    }
    persist();
    refreshStatus();
    if (!pollTimer) {
      pollTimer = setInterval(checkSession, 3000);
      checkSession(); // its 401 brings the CSRF token the sign-in form needs (the old one went with the session)
    }
  }

  function checkSession() {
    return fetch(draftUrl, { credentials: "same-origin", headers: { Accept: "application/json" } }).then(answer).then(
      (result) => {
        if (result.json.csrf_token) token = result.json.csrf_token;
        if (result.status === 200 && result.json.ok) { resumed(result.json); return; }
        const meaning = classify(result.status, result.json);
        if (meaning.kind === "signed-out") { if (mode !== "signed-out") signedOut(); return; }
        if (mode === "checking") mode = "ok";
        if (isFinal(meaning.kind)) { final(meaning.kind, meaning.detail); return; }
        problem = interpolate(gettext("Not saved: this item cannot be opened with the current sign-in (%(status)s)."), { status: result.status }, true);
        refreshStatus();
      },
      () => { if (mode === "checking") mode = "ok"; if (mode === "ok") offline(); });
  }

  function resumed(state) {
    token = state.csrf_token || token;
    const input = form.querySelector("input[name=csrfmiddlewaretoken]");
    if (input && token) input.value = token;
    if (pollTimer) { clearInterval(pollTimer); pollTimer = null; }
    signinPanel.hidden = true;
    if (mode === "signed-out" || mode === "offline" || mode === "checking") mode = "ok";
    if (mode !== "ok") return;
    const outcome = drafts.adopt(store, state);
    setVersion();
    persist();
    if (outcome.conflict) { conflict(); return; }
    if (outcome.updated.length) updatedElsewhere(outcome.updated);
    save();
  }

  function offline() {
    if (mode === "ok") mode = "offline";
    refreshStatus();
    clearTimeout(retryTimer);
    retryTimer = setTimeout(back, 5000);
  }

  function back() {
    if (mode !== "offline") return;
    mode = "ok";
    save();
  }

  window.addEventListener("online", back);

  if (signinForm) {
    signinForm.addEventListener("submit", (event) => {
      event.preventDefault();
      const data = new FormData(signinForm);
      data.set("csrfmiddlewaretoken", csrf());
      data.set("next", signinForm.dataset.next);
      signinStatus.textContent = gettext("Signing in…");
      fetch(signinForm.action, { method: "POST", body: data, credentials: "same-origin", headers: { Accept: "application/json" } })
        .then(answer).then((result) => {
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

  // ---- submission ------------------------------------------------------------------------------------------
  function gaps() {
    const found = questions().filter((q) => fieldValue(q.dataset.name) === "");
    if (list && !list.dataset.order) found.push(list);
    return found;
  }

  function showProblems(problems, missingNames) {
    const items = errorsEl.querySelector("ul");
    items.textContent = "";
    problems.forEach((text) => items.appendChild(element("li", text)));
    errorsEl.hidden = false;
    form.querySelectorAll(".missing").forEach((el) => { el.classList.remove("missing"); el.removeAttribute("aria-invalid"); });
    let first = null;
    missingNames.forEach((name) => {
      const q = name === ORDER ? list : question(name);
      if (!q) return;
      q.classList.add("missing");
      q.setAttribute("aria-invalid", "true");
      if (!first && !q.closest("[hidden]")) first = q;
    });
    if (first) {
      const target = first === list ? list.querySelector("li[tabindex='0']") : first;
      target.focus({ preventScroll: true });
      target.scrollIntoView({ block: "center" });
    } else {
      errorsEl.focus();
    }
  }

  function missingMessage(found) {
    const byLabel = [];
    const where = {};
    const order = [];
    found.forEach((q) => {
      if (q === list) {
        order.push(interpolate(gettext("The order of the turns cannot be submitted yet: %(problems)s"), { problems: list.dataset.problems || gettext("it is not valid") }, true));
        return;
      }
      if (!where[q.dataset.label]) { where[q.dataset.label] = []; byLabel.push(q.dataset.label); }
      where[q.dataset.label].push(q.dataset.where);
    });
    return byLabel.map((label) => interpolate(gettext("%(question)s is missing for %(units)s"), { question: label, units: joined(where[label]) }, true)).concat(order);
  }

  function endSubmitting() {
    form.dataset.submitting = "false";
    if (submitButton) {
      submitButton.textContent = gettext("Submit");
      submitButton.disabled = Boolean(list && !list.dataset.order);
    }
  }

  function startSubmitting() {
    form.dataset.submitting = "true";
    if (submitButton) { submitButton.disabled = true; submitButton.textContent = gettext("Submitting…"); }
  }

  function submitted() {
    store.pending = {};
    persist();
    leaving = true;
    window.location.assign(submitUrl); // goes on to the training feedback, the next item or the queue
  }

  form.addEventListener("submit", (event) => {
    if (readOnly) return;
    event.preventDefault();
    if (form.dataset.submitting === "true") return;
    const found = gaps();
    if (found.length) {
      showProblems(missingMessage(found), found.map((q) => (q === list ? ORDER : q.dataset.name)));
      return;
    }
    if (mode === "conflict") { alertEl.scrollIntoView({ block: "center" }); alertEl.focus(); return; }
    if (mode === "final") { alertEl.scrollIntoView({ block: "center" }); alertEl.focus(); return; }
    if (list && list.dataset.order) drafts.record(store, ORDER, list.dataset.order);
    drafts.requestSubmit(store);
    persist();
    if (mode === "signed-out") {
      refreshStatus();
      signinPanel.scrollIntoView({ block: "center" });
      document.getElementById("signin-password").focus();
      return;
    }
    startSubmitting();
    if (mode === "offline") mode = "ok";
    save();
  });

  // ---- leaving ----------------------------------------------------------------------------------------------
  window.addEventListener("beforeunload", (event) => {
    if (readOnly || leaving || !Object.keys(store.pending).length) return;
    event.preventDefault();
    event.returnValue = "";
  });

  window.addEventListener("pagehide", () => {
    if (readOnly || leaving || mode !== "ok") return;
    const out = drafts.outgoing(store);
    if (!out || out.submit) return;
    // answers of the save in flight, changed again since, would clash with it: the rest goes out
    const body = flying ? drafts.without(out.body, flying.body) : out.body;
    if (!body.judgements.length && body.reordering === undefined) return;
    try { post(saveUrl, body, true); } catch (error) { /* nothing more can be done here */ }
  });

  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "hidden") save();
  });

  // Back/forward from the browser's memory: ask the server again (the item may have been submitted).
  window.addEventListener("pageshow", (event) => { if (event.persisted) window.location.reload(); });

  setInterval(() => {
    if (!readOnly && store && document.visibilityState === "visible") store.seconds += 1;
  }, 1000);

  // ---- start ------------------------------------------------------------------------------------------------
  form.addEventListener("change", (event) => {
    const q = event.target.closest("[data-question]");
    if (q) record(q.dataset.name, fieldValue(q.dataset.name));
  });

  form.addEventListener("dialeval:reorder", (event) => {
    if (!event.detail.applied && !event.detail.initial && event.detail.order) record(ORDER, list.dataset.order);
    refreshStatus();
  });

  // answers changed before this script ran (a slow connection, a quick hand) are changes like any other
  const known = {};
  const early = {};
  questions().forEach((q) => {
    const name = q.dataset.name;
    known[name] = savedValue(name);
    if (fieldValue(name) !== known[name]) early[name] = fieldValue(name);
  });
  if (list) known[ORDER] = list.dataset.savedOrder ? JSON.stringify(list.dataset.savedOrder.split(",").map(Number)) : "";
  store = drafts.createStore({ version: form.dataset.version, known: known });
  const stored = kept();
  if (stored) {
    const shown = new Set(names());
    Object.keys(stored.pending).forEach((name) => { if (!shown.has(name)) delete stored.pending[name]; });
  }
  if (readOnly) {
    const left = stored ? Object.keys(stored.pending).filter((name) => stored.pending[name].value !== (known[name] || "")) : [];
    if (!left.length) { persist(); return; }
    showAlert([gettext("This browser still holds answers for this item that were not saved before it was submitted:")],
      left.map((name) => describe(name) + ": " + choiceLabel(name, stored.pending[name].value)),
      [{ id: "discard-kept", label: gettext("Discard them"), secondary: true, action: () => { try { localStorage.removeItem(storageKey); } catch (error) { /* nothing kept */ } hideAlert(); } }]);
    return;
  }
  // kept at an older version: what was written since decides which kept answers clash (asked of the server)
  if (stored && Number(stored.version) < store.version) {
    fetch(draftUrl, { credentials: "same-origin", headers: { Accept: "application/json" } }).then(answer).then(
      (result) => carryOn(stored, result.status === 200 && result.json.ok ? drafts.revisionsOf(result.json) : null),
      () => carryOn(stored, null));
  } else {
    carryOn(stored, {});
  }

  function carryOn(kept, revisions) {
    const outcome = drafts.restore(store, kept, revisions);
    const restoredValues = {};
    outcome.restored.forEach((name) => { restoredValues[name] = store.pending[name].value; });
    showFields(restoredValues);
    Object.entries(early).forEach(([name, value]) => { if (!store.pending[name]) drafts.record(store, name, value); });
    persist();
    if (outcome.conflict) { conflict(); return; }
    if (outcome.restored.length) {
      showAlert([store.submit
        ? gettext("Answers kept in this browser that had not reached the server are back on the page, and the item you asked to submit is being submitted.")
        : gettext("Answers kept in this browser that had not reached the server are back on the page and are being saved.")],
      [], [{ id: "dismiss-note", label: gettext("OK"), secondary: true, action: hideAlert }]);
    }
    if (store.submit) startSubmitting();
    save();
    refreshStatus();
  }
}

if (form) start();
