// The language picker of every page (base.html): choosing a language submits the form; the button
// stays for people without JavaScript, and is hidden once this script runs.
(function () {
  "use strict";
  document.querySelectorAll("[data-language-picker]").forEach(function (form) {
    var select = form.querySelector("[data-auto-submit]");
    var button = form.querySelector("button[type=submit]");
    if (!select) return;
    if (button) button.hidden = true;
    select.addEventListener("change", function () { form.submit(); });
  });
})();
