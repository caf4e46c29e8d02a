// The client's own pages (js/routes.js): which screen each path shows, and
// what it loads. The game's screens (start, room, table) are app.js's.

import { Viewer } from "./viewer.js";
import { AnalysisPanel } from "./analysis.js";
import { Profiles } from "./profile.js";
import { Puzzles } from "./puzzles.js";
import { back } from "./routes.js";
import { t } from "./i18n.js";

export class Pages {
  constructor({ show, toast, relogin, renamed }) {
    this.show = show;
    this.toast = toast;
    this.current = null; // the page on screen ({kind, id, ...})
    this.viewer = new Viewer({ back: () => this.back(), share: (url) => this.share(url) });
    this.analysis = new AnalysisPanel(this.viewer);
    this.profiles = new Profiles({ show, toast, back: () => this.back(), relogin, renamed });
    this.puzzles = new Puzzles({ show });
  }

  back() {
    this.viewer.stop();
    back();
  }

  /** Show ``page`` (called on every route(): idempotent for the same page). */
  open(page) {
    const same = this.current && this.current.kind === page.kind && this.current.id === page.id;
    this.current = page;
    if (page.kind === "game") {
      this.show("viewer");
      if (!same) this.viewer.open(page.id, page.step);
      return;
    }
    this.viewer.stop();
    if (page.kind === "puzzles") {
      this.puzzles.open(page.id);
      return;
    }
    this.profiles.open(page);
  }

  async share(url) {
    let ok = false;
    try {
      await navigator.clipboard.writeText(url);
      ok = true;
    } catch {
      ok = false;
    }
    this.toast(ok ? t("viewer.copied") : url);
  }

  relabel() {
    this.viewer.relabel();
    this.analysis.relabel();
    this.profiles.relabel();
    if (this.puzzles.puzzle) this.puzzles.render();
  }
}
