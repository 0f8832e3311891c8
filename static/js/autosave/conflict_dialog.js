// The conflict dialog: every question whose stored value differs from what this page last saw, with both
// values and the choices conflicts.js offers for it (never "keep mine" where this page has no answer of its
// own), and the buttons that apply the choices. DOM only; what a choice does is conflicts.js's.
import { element, buttonsRow } from "./alerts.js";
import { defaultChoice, offered, unchosen } from "./conflicts.js";

/**
 * Render `conflict` into `box` (an AlertBox). `choices` (name -> "mine" | "saved") is kept up to date as the
 * person picks; `describe(name)` and `label(name, value)` word a question and a value; `apply()` and
 * `takeAll()` are the buttons' actions.
 */
export function conflictShow(box, conflict, choices, { describe, label, apply, takeAll }) {
  const el = box.el;
  el.textContent = "";
  el.dataset.kind = "conflict";
  el.appendChild(element("p", gettext("Not saved: this item was changed in another tab or window since this page last saw it. Nothing was overwritten, and nothing from this page is sent until you choose, answer by answer, which value to keep.")));
  const ul = element("ul", "", "conflicts");
  conflict.items.forEach((item, index) => {
    const li = element("li");
    li.dataset.conflict = item.name;
    li.appendChild(element("p", interpolate(gettext("%(question)s: %(theirs)s saved in another tab or window, %(yours)s here"), { question: describe(item.name), theirs: label(item.name, item.stored), yours: label(item.name, item.mine) }, true)));
    const chosen = choices[item.name] || defaultChoice(item);
    const texts = {
      mine: interpolate(gettext("Keep mine: %(value)s"), { value: label(item.name, item.mine) }, true),
      saved: interpolate(gettext("Take the saved one: %(value)s"), { value: label(item.name, item.stored) }, true),
    };
    for (const value of offered(item)) {
      const choice = element("label", "", "conflict-choice");
      const input = element("input");
      input.type = "radio";
      input.name = "conflict-" + index;
      input.value = value;
      input.checked = chosen === value;
      input.addEventListener("change", () => { choices[item.name] = value; conflictLeft(box, conflict, choices); });
      choice.appendChild(input);
      choice.appendChild(document.createTextNode(" " + texts[value]));
      li.appendChild(choice);
    }
    ul.appendChild(li);
  });
  el.appendChild(ul);
  el.appendChild(buttonsRow([
    { id: "conflict-apply", label: gettext("Save my choices"), action: apply },
    { id: "conflict-all-saved", label: gettext("Take all saved answers"), secondary: true, action: takeAll },
  ]));
  el.appendChild(element("p", "", "conflict-status"));
  el.hidden = false;
  conflictLeft(box, conflict, choices);
}

/** Say how many answers still wait for a choice. */
export function conflictLeft(box, conflict, choices) {
  const left = unchosen(conflict, choices);
  const status = box.el.querySelector(".conflict-status");
  if (status) status.textContent = left.length ? interpolate(ngettext("Choose a value for %(n)s more answer.", "Choose a value for %(n)s more answers.", left.length), { n: left.length }, true) : "";
}
