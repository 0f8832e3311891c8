// Saving that never loses work.
// - Each save sends only the answers changed on this page, with the item's version and the value the page
//   last saw for each (its base): the server merges them, so a stale tab never erases answers given
//   elsewhere, and an answer changed both here and elsewhere is a conflict that this page shows (keeping
//   its own answers visible) until the person reloads or keeps theirs.
// - Unconfirmed answers wait in localStorage, keyed by user and item, until the server has them; they are
//   put back on the page after a reload or a sign-in.
// - Signed out (401): "You were signed out: sign in again (your answers are kept)", an inline sign-in form,
//   and after signing in (here or in another tab) the answers are sent and work carries on.
// - Leaving: pending answers are flushed on pagehide (fetch keepalive); leaving while a save is not
//   confirmed asks first. Submission goes through the same path and never leaves the item's URL on failure.
(function () {
  "use strict";
  const form = document.getElementById("annotation-form");
  if (!form) return;
  const readOnly = form.dataset.readOnly === "true";
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
  const secondsField = document.getElementById("seconds-field");
  const list = document.getElementById("reorder-list");

  let version = Number(form.dataset.version);
  let known = {}; // name -> the value the server holds as far as this page knows ("" = no answer)
  let pending = {}; // name -> {value, base}: changed on this page, not yet confirmed by the server
  let seconds = 0; // time on task not yet sent
  let inFlight = null;
  let again = false;
  let mode = "ok"; // ok | checking (the session, after a 403) | signed-out | conflict | submitted | offline
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

  function fieldValue(name) {
    if (name === "reordering") return list ? list.dataset.order || "" : "";
    const q = question(name);
    if (!q) return "";
    const select = q.querySelector("select");
    if (select) return select.value;
    const checked = q.querySelector("input[type=radio]:checked");
    return checked ? checked.value : "";
  }

  // What the server rendered for a question (its stored answer): the defaults, whatever was changed since.
  function savedValue(name) {
    const q = question(name);
    if (!q) return "";
    const select = q.querySelector("select");
    if (select) {
      const chosen = Array.prototype.find.call(select.options, function (o) { return o.defaultSelected; });
      return chosen ? chosen.value : (select.options.length ? select.options[0].value : "");
    }
    const checked = Array.prototype.find.call(q.querySelectorAll("input[type=radio]"), function (r) { return r.defaultChecked; });
    return checked ? checked.value : "";
  }

  function setField(name, value) {
    if (name === "reordering") {
      if (value && list) form.dispatchEvent(new CustomEvent("dialeval:set-order", { detail: { order: JSON.parse(value) } }));
      return;
    }
    const q = question(name);
    if (!q) return;
    const select = q.querySelector("select");
    if (select) select.value = value;
    else q.querySelectorAll("input[type=radio]").forEach(function (radio) { radio.checked = radio.value === value; });
  }

  function choiceLabel(name, value) {
    if (!value) return gettext("no answer");
    if (name === "reordering") return gettext("another order");
    const q = question(name);
    const select = q && q.querySelector("select");
    if (select) {
      const option = Array.from(select.options).find(function (o) { return o.value === value; });
      return option ? option.textContent : value;
    }
    const radio = q && Array.from(q.querySelectorAll("input[type=radio]")).find(function (r) { return r.value === value; });
    if (!radio) return value;
    return Array.from(radio.parentNode.childNodes)
      .filter(function (node) { return node.nodeType === Node.TEXT_NODE; })
      .map(function (node) { return node.textContent; }).join("").trim();
  }

  function describe(name) {
    if (name === "reordering") return gettext("The order of the turns");
    const q = question(name);
    return q ? q.dataset.label + ", " + q.dataset.where : name;
  }

  function names(items) {
    if (items.length > 6) return interpolate(gettext("%(first)s and %(more)s more"), { first: items.slice(0, 6).join(gettext(", ")), more: items.length - 6 }, true);
    if (items.length <= 1) return items.join("");
    return interpolate(gettext("%(first)s and %(last)s"), { first: items.slice(0, -1).join(gettext(", ")), last: items[items.length - 1] }, true);
  }

  // ---- this browser's copy ---------------------------------------------------------------------------
  function persist() {
    try {
      if (Object.keys(pending).length) {
        localStorage.setItem(storageKey, JSON.stringify({ pending: pending, version: version, kept: Date.now() }));
      } else {
        localStorage.removeItem(storageKey);
      }
    } catch (error) { /* storage disabled or full: the answers are still on the page */ }
  }

  function restored() {
    try {
      const kept = JSON.parse(localStorage.getItem(storageKey) || "null");
      return kept && kept.pending ? kept.pending : {};
    } catch (error) { return {}; }
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
    if (mode === "signed-out") text = gettext("Not saved: you were signed out. Your answers are kept in this browser.");
    else if (mode === "conflict") text = gettext("Not saved: this item was changed in another tab or window (see above).");
    else if (mode === "submitted") text = gettext("Not saved: this item has been submitted.");
    else if (mode === "checking") text = gettext("Saving… (checking the sign-in)");
    else if (mode === "offline") text = gettext("Not saved yet (no connection): your answers are kept in this browser and sent when the connection is back.");
    else if (problem) text = problem;
    else if (Object.keys(pending).length || inFlight) text = gettext("Saving…");
    else if (order) text = lastSaved ? interpolate(gettext("Answers saved at %(time)s; the order is not saved yet: %(problems)s."), { time: utcTime(lastSaved), problems: order }, true) : interpolate(gettext("the order is not saved yet: %(problems)s."), { problems: order }, true);
    else text = lastSaved ? interpolate(gettext("Draft saved at %(time)s"), { time: utcTime(lastSaved) }, true) : "";
    statusEl.textContent = text;
  }

  function element(tag, text, className) {
    const el = document.createElement(tag);
    if (text) el.textContent = text;
    if (className) el.className = className;
    return el;
  }

  function showAlert(paragraphs, items, buttons) {
    alertEl.textContent = "";
    paragraphs.forEach(function (text) { alertEl.appendChild(element("p", text)); });
    if (items && items.length) {
      const ul = element("ul");
      items.forEach(function (text) { ul.appendChild(element("li", text)); });
      alertEl.appendChild(ul);
    }
    if (buttons && buttons.length) {
      const p = element("p", "", "alert-actions");
      buttons.forEach(function (b) {
        const button = element("button", b.label, b.secondary ? "secondary" : "");
        button.type = "button";
        button.id = b.id;
        button.addEventListener("click", b.action);
        p.appendChild(button);
      });
      alertEl.appendChild(p);
    }
    alertEl.hidden = false;
  }

  function hideAlert() { alertEl.hidden = true; alertEl.textContent = ""; }

  // ---- recording and sending changes -----------------------------------------------------------------
  function record(name, value) {
    if (readOnly) return;
    const entry = pending[name];
    if (entry) entry.value = value;
    else if ((known[name] || "") !== value) pending[name] = { value: value, base: known[name] || "" };
    else return;
    problem = "";
    persist();
    save();
  }

  function csrf() {
    const match = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
    if (match) return decodeURIComponent(match[1]);
    if (token) return token;
    const input = form.querySelector("input[name=csrfmiddlewaretoken]");
    return input ? input.value : "";
  }

  function body(entries) {
    const data = { version: version, changes: {}, base: {}, seconds: seconds };
    Object.keys(entries).forEach(function (name) {
      if (name === "reordering") {
        data.reordering = JSON.parse(entries[name].value);
        data.reordering_base = entries[name].base ? JSON.parse(entries[name].base) : null;
      } else {
        data.changes[name] = entries[name].value;
        data.base[name] = entries[name].base;
      }
    });
    return data;
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
      function (json) { return { status: response.status, json: json }; },
      function () { return { status: response.status, json: {} }; });
  }

  function copy(entries) {
    const out = {};
    Object.keys(entries).forEach(function (name) { out[name] = { value: entries[name].value, base: entries[name].base }; });
    return out;
  }

  function save() {
    if (readOnly || mode !== "ok") { refreshStatus(); return Promise.resolve(); }
    if (inFlight) { again = true; return inFlight; }
    if (!Object.keys(pending).length) { refreshStatus(); return Promise.resolve(); }
    const sent = copy(pending);
    const sentSeconds = seconds;
    inFlight = post(draftUrl, body(sent)).then(answer).then(
      function (result) { inFlight = null; saved(result, sent, sentSeconds); },
      function () { inFlight = null; offline(); });
    refreshStatus();
    inFlight = inFlight.then(function () {
      refreshStatus();
      const more = again || (mode === "ok" && Object.keys(pending).length && !problem);
      again = false;
      if (more && mode === "ok") return save();
      return null;
    });
    return inFlight;
  }

  // Resolves once nothing is in flight (each save chains the next one).
  function settle() { return inFlight ? inFlight.then(settle) : Promise.resolve(); }

  function confirm(sent) {
    Object.keys(sent).forEach(function (name) {
      known[name] = sent[name].value;
      const entry = pending[name];
      if (entry && entry.value === sent[name].value) delete pending[name];
      else if (entry) entry.base = sent[name].value;
    });
  }

  function setVersion(value) {
    version = value;
    versionField.value = String(value);
  }

  function saved(result, sent, sentSeconds) {
    const json = result.json;
    if (result.status === 200 && json.ok) {
      forbidden = 0;
      problem = "";
      confirm(sent);
      seconds = Math.max(0, seconds - sentSeconds);
      setVersion(json.version);
      lastSaved = json.saved_at ? new Date(json.saved_at) : new Date();
      persist();
      if (json.stale) {
        const clashes = adopt(json);
        if (clashes.length) conflict(clashes);
      }
      return;
    }
    refused(result, sent);
  }

  // A save or submission the server did not take; nothing of it was stored.
  function refused(result, sent) {
    const json = result.json;
    if (result.status === 401) { signedOut(); return; }
    if (result.status === 403) {
      forbidden += 1;
      if (forbidden <= 2) { mode = "checking"; checkSession(); return; } // a new CSRF token after signing in elsewhere
      problem = gettext("Not saved: the server refused the save (403). Your answers are kept in this browser.");
      return;
    }
    if (result.status === 409 && json.reason === "conflict") {
      const clashes = adopt(json);
      conflict(clashes.length ? clashes : (json.conflicts || []));
      return;
    }
    if (result.status === 409) {
      mode = "submitted";
      showAlert([gettext("This item has been submitted (in another tab or window?): the changes made here were not saved."),
        gettext("Your answers are kept in this browser; ask the project lead to reopen the item to add them.")],
      [], [{ id: "reload-submitted", label: gettext("Show the submitted item"), action: reloadPage }]);
      return;
    }
    if (result.status === 400) {
      // values the server cannot take as they are: drop them so that the rest can be saved
      Object.keys(sent).forEach(function (name) {
        if (pending[name] && pending[name].value === sent[name].value) delete pending[name];
      });
      persist();
      problem = interpolate(gettext("Not saved: %(problems)s"), { problems: (json.problems || [gettext("the server refused the values")]).join("; ") }, true);
      return;
    }
    offline();
  }

  // Take the server's state: answers given elsewhere appear here, this page's unsent answers stay, and
  // each of them that was also changed elsewhere since this page saw it is returned as a clash.
  function adopt(state) {
    const server = Object.assign({}, state.judgements || {});
    if (list) server.reordering = state.reordering ? JSON.stringify(state.reordering) : "";
    const all = questions().map(function (q) { return q.dataset.name; });
    if (list) all.push("reordering");
    const clashes = [];
    let updated = 0;
    all.forEach(function (name) {
      const theirs = server[name] || "";
      const entry = pending[name];
      if (entry) {
        if (entry.value === theirs) delete pending[name];
        else if (entry.base !== theirs) clashes.push({ name: name, theirs: theirs, yours: entry.value });
      } else if ((known[name] || "") !== theirs) {
        setField(name, theirs);
        updated += 1;
      }
      known[name] = theirs;
    });
    setVersion(state.version);
    persist();
    form.dispatchEvent(new CustomEvent("dialeval:applied"));
    if (updated && !clashes.length) {
      showAlert([updated + (updated === 1 ? " answer" : " answers") + " given in another tab or window " +
        (updated === 1 ? "is" : "are") + " now shown here too."], [], [{ id: "dismiss-note", label: gettext("OK"), secondary: true, action: hideAlert }]);
    }
    return clashes;
  }

  function conflict(clashes) {
    mode = "conflict";
    clashes.forEach(function (c) {
      const q = c.name === "reordering" ? list : question(c.name);
      if (q) q.classList.add("conflict");
    });
    showAlert(
      [gettext("Not saved: this item was changed in another tab or window, and so were these answers here. Nothing was overwritten; your answers stay on this page until you choose.")],
      clashes.map(function (c) {
        return interpolate(gettext("%(question)s: %(theirs)s in the other tab or window, %(yours)s here"), { question: describe(c.name), theirs: choiceLabel(c.name, c.theirs), yours: choiceLabel(c.name, c.yours) }, true);
      }),
      [
        { id: "conflict-reload", label: gettext("Reload to see the saved answers"), action: function () { resolve(clashes, false); } },
        { id: "conflict-keep", label: gettext("Keep my answers"), secondary: true, action: function () { resolve(clashes, true); } },
      ]);
    alertEl.focus();
    refreshStatus();
  }

  function resolve(clashes, keepMine) {
    clashes.forEach(function (c) {
      if (!pending[c.name]) return;
      if (keepMine) pending[c.name].base = c.theirs;
      else delete pending[c.name];
    });
    persist();
    if (!keepMine) { reloadPage(); return; }
    form.querySelectorAll(".conflict").forEach(function (el) { el.classList.remove("conflict"); });
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
    if (!pollTimer) pollTimer = setInterval(checkSession, 3000);
  }

  function checkSession() {
    return fetch(draftUrl, { credentials: "same-origin", headers: { Accept: "application/json" } }).then(answer).then(
      function (result) {
        if (result.status === 200 && result.json.ok) { resumed(result.json); return; }
        if (result.status === 401) { signedOut(); return; }
        if (mode === "checking") mode = "ok";
        problem = interpolate(gettext("Not saved: this item cannot be opened with the current sign-in (%(status)s)."), { status: result.status }, true);
        refreshStatus();
      },
      function () { if (mode === "checking") mode = "ok"; if (mode === "ok") offline(); });
  }

  function resumed(state) {
    token = state.csrf_token || token;
    const input = form.querySelector("input[name=csrfmiddlewaretoken]");
    if (input && token) input.value = token;
    if (pollTimer) { clearInterval(pollTimer); pollTimer = null; }
    signinPanel.hidden = true;
    if (mode === "signed-out" || mode === "offline" || mode === "checking") mode = "ok";
    if (mode !== "ok") return;
    const clashes = adopt(state);
    if (clashes.length) conflict(clashes);
    else save();
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
    signinForm.addEventListener("submit", function (event) {
      event.preventDefault();
      const data = new FormData(signinForm);
      data.set("csrfmiddlewaretoken", csrf());
      data.set("next", signinForm.dataset.next);
      signinStatus.textContent = gettext("Signing in…");
      fetch(signinForm.action, { method: "POST", body: data, credentials: "same-origin", headers: { Accept: "application/json" } })
        .then(answer).then(function (result) {
          if (result.status === 200 && result.json.ok) {
            signinStatus.textContent = "";
            document.getElementById("signin-password").value = "";
            resumed(result.json);
          } else {
            signinStatus.textContent = gettext("Your username and password did not match. Please try again.");
          }
        }, function () { signinStatus.textContent = gettext("No connection; try again in a moment."); });
    });
  }

  // ---- submission ------------------------------------------------------------------------------------------
  function gaps() {
    const found = questions().filter(function (q) { return fieldValue(q.dataset.name) === ""; });
    if (list && !list.dataset.order) found.push(list);
    return found;
  }

  function showProblems(problems, missingNames) {
    const list_ = errorsEl.querySelector("ul");
    list_.textContent = "";
    problems.forEach(function (text) { list_.appendChild(element("li", text)); });
    errorsEl.hidden = false;
    form.querySelectorAll(".missing").forEach(function (el) { el.classList.remove("missing"); el.removeAttribute("aria-invalid"); });
    let first = null;
    missingNames.forEach(function (name) {
      const q = name === "reordering" ? list : question(name);
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
    found.forEach(function (q) {
      if (q === list) {
        order.push(interpolate(gettext("The order of the turns cannot be submitted yet: %(problems)s"), { problems: list.dataset.problems || gettext("it is not valid") }, true));
        return;
      }
      if (!where[q.dataset.label]) { where[q.dataset.label] = []; byLabel.push(q.dataset.label); }
      where[q.dataset.label].push(q.dataset.where);
    });
    return byLabel.map(function (label) { return interpolate(gettext("%(question)s is missing for %(units)s"), { question: label, units: names(where[label]) }, true); }).concat(order);
  }

  function endSubmitting() {
    form.dataset.submitting = "false";
    if (submitButton) {
      submitButton.textContent = gettext("Submit");
      submitButton.disabled = Boolean(list && !list.dataset.order);
    }
  }

  form.addEventListener("submit", function (event) {
    if (readOnly) return;
    event.preventDefault();
    if (form.dataset.submitting === "true") return;
    const found = gaps();
    if (found.length) {
      showProblems(missingMessage(found), found.map(function (q) { return q === list ? "reordering" : q.dataset.name; }));
      return;
    }
    if (mode === "signed-out") { signinPanel.scrollIntoView({ block: "center" }); document.getElementById("signin-password").focus(); return; }
    if (mode === "conflict") { alertEl.scrollIntoView({ block: "center" }); alertEl.focus(); return; }
    form.dataset.submitting = "true";
    if (submitButton) { submitButton.disabled = true; submitButton.textContent = gettext("Submitting…"); }
    if (mode === "offline") mode = "ok";
    save();
    settle().then(function () {
      if (mode !== "ok") { endSubmitting(); refreshStatus(); return null; }
      const entries = copy(pending);
      if (list && list.dataset.order && list.dataset.order !== (known.reordering || "") && !entries.reordering) {
        entries.reordering = { value: list.dataset.order, base: known.reordering || "" };
      }
      const sentSeconds = seconds;
      secondsField.value = String(sentSeconds);
      return post(submitUrl, body(entries)).then(answer).then(function (result) {
        if (result.status === 200 && result.json.ok) {
          confirm(entries);
          pending = {};
          persist();
          leaving = true;
          window.location.assign(result.json.next_url);
          return;
        }
        endSubmitting();
        if (result.status === 400 && result.json.reason === "invalid") {
          showProblems(result.json.problems || [], result.json.missing || []);
          save();
          return;
        }
        refused(result, {});
        refreshStatus();
      }, function () { endSubmitting(); offline(); });
    });
  });

  // ---- leaving ----------------------------------------------------------------------------------------------
  window.addEventListener("beforeunload", function (event) {
    if (readOnly || leaving || !Object.keys(pending).length) return;
    event.preventDefault();
    event.returnValue = "";
  });

  window.addEventListener("pagehide", function () {
    if (readOnly || leaving || mode !== "ok" || !Object.keys(pending).length) return;
    try { post(draftUrl, body(pending), true); } catch (error) { /* nothing more can be done here */ }
  });

  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "hidden") save();
  });

  // Back/forward from the browser's memory: ask the server again (the item may have been submitted).
  window.addEventListener("pageshow", function (event) { if (event.persisted) window.location.reload(); });

  setInterval(function () {
    if (!readOnly && document.visibilityState === "visible") seconds += 1;
  }, 1000);

  // ---- start ------------------------------------------------------------------------------------------------
  form.addEventListener("change", function (event) {
    const q = event.target.closest("[data-question]");
    if (q) record(q.dataset.name, fieldValue(q.dataset.name));
  });

  form.addEventListener("dialeval:reorder", function (event) {
    if (!event.detail.applied && !event.detail.initial && event.detail.order) record("reordering", list.dataset.order);
    refreshStatus();
  });

  function start() {
    // answers changed before this script ran (a slow connection, a quick hand) are changes like any other
    const early = {};
    questions().forEach(function (q) {
      const name = q.dataset.name;
      known[name] = savedValue(name);
      if (fieldValue(name) !== known[name]) early[name] = fieldValue(name);
    });
    if (list) known.reordering = list.dataset.savedOrder ? JSON.stringify(list.dataset.savedOrder.split(",").map(Number)) : "";
    const kept = restored();
    const names_ = Object.keys(kept).filter(function (name) { return name === "reordering" ? list : question(name); });
    if (readOnly) {
      const left = names_.filter(function (name) { return kept[name].value !== (known[name] || ""); });
      if (!left.length) { pending = {}; persist(); return; }
      pending = kept;
      showAlert([gettext("This browser still holds answers for this item that were not saved before it was submitted:")],
        left.map(function (name) { return describe(name) + ": " + choiceLabel(name, kept[name].value); }),
        [{ id: "discard-kept", label: gettext("Discard them"), secondary: true, action: function () { pending = {}; persist(); hideAlert(); } }]);
      return;
    }
    const clashes = [];
    names_.forEach(function (name) {
      const entry = kept[name];
      const theirs = known[name] || "";
      if (entry.value === theirs) return;
      if (entry.base !== theirs) clashes.push({ name: name, theirs: theirs, yours: entry.value });
      pending[name] = entry;
      setField(name, entry.value);
    });
    form.dispatchEvent(new CustomEvent("dialeval:applied"));
    const keptBack = Object.keys(pending).length;
    Object.keys(early).forEach(function (name) {
      if (!pending[name]) pending[name] = { value: early[name], base: known[name] || "" };
    });
    persist();
    if (clashes.length) { conflict(clashes); return; }
    if (keptBack) {
      showAlert([gettext("Answers kept in this browser that had not reached the server are back on the page and are being saved.")],
        [], [{ id: "dismiss-note", label: gettext("OK"), secondary: true, action: hideAlert }]);
    }
    if (Object.keys(pending).length) save();
    refreshStatus();
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
