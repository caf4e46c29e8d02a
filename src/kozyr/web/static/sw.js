// Kozyr's service worker: keeps the client's files so that the app opens at
// once on a slow network, and without one; play itself always needs the server
// (the WebSocket and the API never go through this cache).
//
// The server fills in VERSION (a hash of every client file) and FILES when it
// starts (src/kozyr/server/static.py). A new version changes this file, so the
// browser installs the new worker: it fills a new cache, takes over at once and
// deletes the old cache; the page reloads itself onto the new version as soon
// as no game is on screen (js/pwa.js). Within one version no file changes, so
// whatever is in the version's cache is current.

const VERSION = "__KOZYR_VERSION__";
const FILES = ["__KOZYR_FILES__"];
const CACHE = `kozyr-${VERSION}`;
// A page waits this long for the network before the kept copy is shown.
const PAGE_WAIT_MS = 3000;
// Never cached: the server's answers and the game itself.
const SERVER_ONLY = /^\/(ws|api|health)(\/|$)/;

self.addEventListener("install", (event) => {
  event.waitUntil(
    (async () => {
      const cache = await caches.open(CACHE);
      // "reload": straight from the server, not from the browser's HTTP cache.
      await cache.addAll(FILES.map((f) => new Request(new URL(f, self.registration.scope), { cache: "reload" })));
      await self.skipWaiting();
    })(),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys()) {
        if (name.startsWith("kozyr-") && name !== CACHE) await caches.delete(name);
      }
      await self.clients.claim();
    })(),
  );
});

self.addEventListener("fetch", (event) => {
  const req = event.request;
  if (req.method !== "GET") return;
  const url = new URL(req.url);
  if (url.origin !== self.location.origin || SERVER_ONLY.test(url.pathname)) return;
  event.respondWith(req.mode === "navigate" ? page(req) : file(req));
});

/** A page: the network first (so a new version is seen at once), the kept copy
 * when the network fails or is slower than PAGE_WAIT_MS. */
async function page(req) {
  const cache = await caches.open(CACHE);
  const kept = await cache.match(req, { ignoreSearch: true });
  const network = fetch(req);
  if (!kept) return network;
  network.catch(() => {}); // answered from the cache: a late failure is no news
  const late = new Promise((resolve) => setTimeout(() => resolve(kept), PAGE_WAIT_MS));
  try {
    return await Promise.race([network, late]);
  } catch {
    return kept;
  }
}

/** Any other file: the version's cache, else the network. */
async function file(req) {
  const cache = await caches.open(CACHE);
  return (await cache.match(req)) || fetch(req);
}
