// The how-to-play pages (howto/<lang>.html): the table theme the player chose.
import { store } from "./store.js";

document.documentElement.dataset.theme = store.get("theme") === "midnight" ? "midnight" : "classic";
