// A study participant's item page: the time left, warnings before it ends, and what happens at the end.
//
// The server renders #study-clock with the deadline and its own time now (ISO 8601): the countdown
// follows the server's clock, whatever this computer's clock says. The warnings (the elements with
// data-warn-seconds, translated by the server) are announced in #time-announce (role=alert) once each,
// the nearest one only. At the deadline the page stops taking answers (the fields and buttons are
// disabled; what autosave has not sent yet still goes, the server takes it during its grace) and
// #time-over says what happened, with the way to the study's page.
//
// A save refused because the time is over or the item went to someone else answers 410 with
// {"detail", "code"}: the page's saving module (autosave/view.js) says so and sends "dialeval:closed"
// on the form, and this module shows the server's reason in #time-over too.

const clock = document.getElementById("study-clock");
const form = document.getElementById("annotation-form");

function format(seconds) {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = String(seconds % 60).padStart(2, "0");
  return h ? `${h}:${String(m).padStart(2, "0")}:${s}` : `${m}:${s}`;
}

function stopAnswers() {
  if (!form) return;
  for (const field of form.querySelectorAll("input, select, textarea, button")) {
    if (field.type !== "hidden") field.disabled = true;
  }
  form.dataset.timeOver = "true";
}

function timeOver(detail) {
  const box = document.getElementById("time-over");
  const first = box.hidden;
  if (detail) document.getElementById("time-over-detail").textContent = detail;
  document.getElementById("time-announce").hidden = true;
  document.getElementById("time-left").textContent = format(0);
  box.hidden = false;
  clock.classList.add("time-over");
  stopAnswers();
  if (first) box.focus();
}

function watchSaves() {
  form.addEventListener("dialeval:closed", (event) => {
    event.preventDefault(); // the saving module leaves the saying to this box
    timeOver(event.detail.detail);
  });
}

function countDown() {
  const deadline = Date.parse(clock.dataset.deadline);
  const skew = Date.parse(clock.dataset.now) - Date.now(); // the server's clock minus this browser's
  const left = document.getElementById("time-left");
  const announce = document.getElementById("time-announce");
  const warnings = [...clock.querySelectorAll("[data-warn-seconds]")]
    .map((el) => ({ seconds: Number(el.dataset.warnSeconds), text: el.textContent.trim() }))
    .sort((a, b) => a.seconds - b.seconds);
  let warned = Infinity; // the last warning given, in seconds before the end

  function tick() {
    const remaining = Math.max(0, Math.ceil((deadline - (Date.now() + skew)) / 1000));
    left.textContent = format(remaining);
    if (remaining === 0) {
      clearInterval(timer);
      timeOver();
      return;
    }
    const due = warnings.find((w) => remaining <= w.seconds);
    if (due && due.seconds < warned) {
      warned = due.seconds;
      announce.textContent = due.text;
      announce.dataset.warning = String(due.seconds);
      announce.hidden = false;
    }
  }

  const timer = setInterval(tick, 1000);
  tick();
}

if (clock && form) {
  watchSaves();
  countDown();
}
