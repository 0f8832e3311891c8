// The study's completion page: after a few seconds, go back to the recruiting platform's completion URL
// (#completion-redirect's data-redirect-url, set by the lead; the link beside it does the same at once).
(function () {
  "use strict";
  const box = document.getElementById("completion-redirect");
  if (!box || !box.dataset.redirectUrl) return;
  const seconds = Number(box.dataset.redirectSeconds || "3");
  window.setTimeout(function () {
    window.location.assign(box.dataset.redirectUrl);
  }, Math.max(0, seconds) * 1000);
})();
