// The annotation page's save loop: one save in flight at a time; what changes meanwhile goes out once it
// is answered, and so on until nothing is left to send. No DOM and no network of its own: the page gives it
//   ready()        whether saves may go out now (not read-only, no conflict, signed in, online...),
//   outgoing()     the next save (draft_store.outgoing) or null,
//   send(out)      a promise of the server's answer {status, json},
//   answered(result, out), failed()   what the answer, or no answer at all, does to the page,
//   more()         whether to go on once answered (something left and no refusal to show),
//   refresh()      the status line again.

export class Sender {
  constructor(page) {
    this.page = page;
    this.inFlight = null; // the promise of the save in flight and what follows it
    this.flying = null; // the save in flight (its body), while inFlight
    this.again = false; // asked to save while one was in flight
  }

  get busy() { return this.inFlight !== null; }

  /** Send what is queued (or note to, after the save in flight); the promise settles when nothing is left. */
  save() {
    const page = this.page;
    if (!page.ready()) { page.refresh(); return Promise.resolve(); }
    if (this.inFlight) { this.again = true; return this.inFlight; }
    const out = page.outgoing();
    if (!out) { page.refresh(); return Promise.resolve(); }
    this.flying = out;
    this.inFlight = page.send(out).then(
      (result) => { this.inFlight = null; this.flying = null; page.answered(result, out); },
      () => { this.inFlight = null; this.flying = null; page.failed(); });
    page.refresh();
    this.inFlight = this.inFlight.then(() => {
      page.refresh();
      const more = this.again || page.more();
      this.again = false;
      if (more && page.ready()) return this.save();
      return null;
    });
    return this.inFlight;
  }
}
