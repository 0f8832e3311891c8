// The annotation page's alert box (#save-alert): paragraphs, a list and buttons, built as DOM (never HTML).

export function element(tag, text, className) {
  const el = document.createElement(tag);
  if (text) el.textContent = text;
  if (className) el.className = className;
  return el;
}

/** A row of buttons: each {id, label, action, secondary}. */
export function buttonsRow(buttons) {
  const p = element("p", "", "alert-actions");
  for (const b of buttons) {
    const button = element("button", b.label, b.secondary ? "secondary" : "");
    button.type = "button";
    button.id = b.id;
    button.addEventListener("click", b.action);
    p.appendChild(button);
  }
  return p;
}

export class AlertBox {
  constructor(el) { this.el = el; }

  /** Show `paragraphs`, then `items` as a list, then `buttons`; `kind` names what it says (data-kind). */
  show(paragraphs, items = [], buttons = [], kind = "") {
    this.el.textContent = "";
    this.el.dataset.kind = kind;
    for (const text of paragraphs) this.el.appendChild(element("p", text));
    if (items.length) {
      const ul = element("ul");
      for (const text of items) ul.appendChild(element("li", text));
      this.el.appendChild(ul);
    }
    if (buttons.length) this.el.appendChild(buttonsRow(buttons));
    this.el.hidden = false;
  }

  /** A short note with an OK button. */
  note(text) {
    this.show([text], [], [{ id: "dismiss-note", label: gettext("OK"), secondary: true, action: () => this.hide() }]);
  }

  hide() { this.el.hidden = true; this.el.textContent = ""; }

  focus() { this.el.focus(); }

  bringIntoView() { this.el.scrollIntoView({ block: "center" }); this.el.focus(); }
}
