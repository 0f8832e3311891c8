// Imports on the manage page: the upload button is disabled while the file uploads, and the
// progress of an import (#import-job, data-status-url) is polled until it finishes (its row in the
// list of imports follows); then the page reloads to show the new batch. Wired through data-*
// attributes, no inline script.
(function () {
  "use strict";
  const form = document.getElementById("upload-form");
  if (form) {
    form.addEventListener("submit", function () {
      const button = form.querySelector("button[type=submit]");
      const note = document.getElementById("upload-note");
      // after the event: the browser has taken the form's data, so disabling cannot cancel the upload
      window.setTimeout(function () {
        button.disabled = true;
        button.textContent = form.dataset.busyLabel || button.textContent;
        if (note) note.hidden = false;
      }, 0);
    });
  }

  const job = document.getElementById("import-job");
  if (!job || job.dataset.finished === "true") return;
  const message = document.getElementById("import-message");
  const bar = document.getElementById("import-progress");
  if (form) form.querySelector("button[type=submit]").disabled = true; // one import at a time from this page

  function show(state) {
    const row = document.querySelector('#import-batches tr[data-batch="' + state.id + '"]');
    if (row) {
      row.querySelectorAll("[data-field]").forEach(function (cell) {
        const value = state[cell.dataset.field];
        cell.textContent = typeof value === "number" ? value.toLocaleString(document.documentElement.lang || undefined) : value;
      });
    }
    job.dataset.status = state.status;
    message.textContent = state.message;
    message.classList.toggle("error", state.status === "failed");
    if (state.progress === null) bar.removeAttribute("value");
    else bar.value = state.progress;
    job.querySelectorAll("[data-count]").forEach(function (el) {
      const value = state[el.dataset.count];
      el.textContent = value === null || value === undefined ? "…" : value.toLocaleString(document.documentElement.lang || undefined);
    });
  }

  function poll() {
    fetch(job.dataset.statusUrl, { headers: { Accept: "application/json" }, credentials: "same-origin" })
      .then(function (response) {
        if (!response.ok) throw new Error("status " + response.status);
        return response.json();
      })
      .then(function (state) {
        show(state);
        if (state.finished) {
          job.dataset.finished = "true";
          window.setTimeout(function () { window.location.reload(); }, 800);
        } else {
          window.setTimeout(poll, 1000);
        }
      })
      .catch(function () { window.setTimeout(poll, 3000); });
  }
  poll();
})();
