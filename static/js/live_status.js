// The dashboard's live figures while they are being brought up to date (templates/scoring/dashboard/_live.html):
// ask every few seconds whether the rebuild has committed, and show the new figures (reload) once it has.
(function () {
  "use strict";
  const notice = document.getElementById("live-stale");
  if (!notice) return;
  const url = notice.dataset.liveStatusUrl;
  const every = 3000;
  function ask() {
    fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then((response) => (response.ok ? response.json() : { stale: true }))
      .then((status) => {
        if (status.stale) {
          window.setTimeout(ask, every);
        } else {
          window.location.reload();
        }
      })
      .catch(() => window.setTimeout(ask, every));
  }
  window.setTimeout(ask, every);
})();
