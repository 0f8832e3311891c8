// Lead actions that undo work ask first: a form with data-confirm="message" opens #confirm-dialog and is
// posted only when confirmed. With data-reason="label" the dialog also asks for an optional reason, which
// goes into the form's "reason" field (the annotator sees it on the item).
(function () {
  "use strict";
  const dialog = document.getElementById("confirm-dialog");
  if (!dialog) return;
  const message = document.getElementById("confirm-message");
  const reasonRow = dialog.querySelector(".confirm-reason");
  const reasonLabel = document.getElementById("confirm-reason-label");
  const reason = document.getElementById("confirm-reason-text");
  const ok = document.getElementById("confirm-ok");
  let asking = null;

  document.addEventListener("submit", function (event) {
    const form = event.target;
    if (!form.matches("form[data-confirm]")) return;
    event.preventDefault();
    asking = form;
    message.textContent = form.dataset.confirm;
    ok.textContent = form.dataset.confirmButton || gettext("Confirm");
    // a destructive action's confirming button looks destructive too
    const button = form.querySelector("button[type=submit]");
    ok.classList.toggle("danger", Boolean(button && button.classList.contains("danger")));
    const withReason = form.dataset.reason !== undefined;
    reasonRow.hidden = !withReason;
    reasonLabel.textContent = form.dataset.reason || gettext("Reason");
    reason.value = "";
    dialog.returnValue = "";
    dialog.showModal();
    (withReason ? reason : ok).focus();
  });

  dialog.addEventListener("close", function () {
    const form = asking;
    asking = null;
    if (!form || dialog.returnValue !== "confirm") return;
    const field = form.querySelector("input[name=reason]");
    if (field) field.value = reason.value;
    form.submit(); // submit() fires no submit event: no second question
  });
})();
