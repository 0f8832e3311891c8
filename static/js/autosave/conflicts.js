// A conflict: every question whose stored value differs from what this page last saw, each with the
// stored value, the value seen, and this page's own (`mine`). `queued` items are answers changed here;
// the others only changed elsewhere. The person chooses answer by answer, and only then is anything
// sent: an answer they keep goes out with the stored value as its base (it has been seen).

/** The choice offered first: none for an answer changed here (the person must pick), the saved value otherwise. */
export function defaultChoice(item) {
  return item.queued ? null : "saved";
}

/**
 * The choices the dialog offers for `item`: keeping this page's answer, or taking the saved one. A question
 * this page never answered and did not change (changed only elsewhere) has no answer of this page's to keep:
 * only the saved one is offered, since "keep mine" would send a blank over another tab's answer.
 */
export function offered(item) {
  return !item.queued && item.mine === "" ? ["saved"] : ["mine", "saved"];
}

/** The items still waiting for a choice. */
export function unchosen(conflict, choices) {
  return conflict.items.filter((item) => !(choices[item.name] || defaultChoice(item)));
}

/**
 * Applies the person's `choices` (name -> "mine" | "saved") to the draft: the stored values become seen,
 * kept answers are queued again over them, taken ones are dropped. Returns the fields the page must now
 * show (name -> stored value), or null while some item has no choice.
 */
export function resolve(store, choices) {
  const conflict = store.conflict;
  if (!conflict || unchosen(conflict, choices).length) return null;
  const show = {};
  for (const item of conflict.items) {
    const chosen = choices[item.name] || defaultChoice(item);
    const choice = offered(item).includes(chosen) ? chosen : "saved";
    store.known[item.name] = item.stored;
    if (choice === "mine" && item.mine !== item.stored) {
      store.pending[item.name] = { value: item.mine, base: item.stored };
    } else {
      delete store.pending[item.name];
      show[item.name] = item.stored;
    }
  }
  // answers changed here meanwhile on other questions keep their base: it is what is stored
  store.version = conflict.version;
  store.conflict = null;
  return show;
}
