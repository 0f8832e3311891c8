// The dashboard's live figures while they are being brought up to date (templates/evaluation/dashboard/_live.html):
// ask every few seconds whether the rebuild has committed, and show the new figures once it has - by reloading
// the page, unless the lead has started something on it (a form being filled in, a form sent or a link
// followed): then the notice says the figures are ready, with a link, and nothing the lead did is cut short.
(function () {
  "use strict";
  const notice = document.getElementById("live-stale");
  if (!notice) return;
  const url = notice.dataset.liveStatusUrl;
  const every = 3000;
  let busy = false;
  document.addEventListener("input", () => (busy = true));
  document.addEventListener("submit", () => (busy = true));
  window.addEventListener("beforeunload", () => (busy = true));

  function ready() {
    if (!busy) {
      window.location.reload();
      return;
    }
    const link = document.createElement("a");
    link.href = window.location.pathname + window.location.search;
    link.textContent = notice.dataset.readyLink;
    notice.textContent = notice.dataset.ready + " ";
    notice.appendChild(link);
    notice.classList.remove("stale");
  }

  function ask() {
    fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then((response) => (response.ok ? response.json() : { stale: true }))
      .then((status) => (status.stale ? window.setTimeout(ask, every) : ready()))
      .catch(() => window.setTimeout(ask, every));
  }
  window.setTimeout(ask, every);
})();
