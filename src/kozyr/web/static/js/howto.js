// The how-to-play pages (howto/<lang>.html): the table's look the player
// picked, else the page language's (js/look.js).
import { applyLook, lookFor } from "./look.js";

applyLook(lookFor(document.documentElement.lang));
