// The installable app: registers the service worker (sw.js keeps the client's
// files so the app opens at once, also offline) and moves the page onto a new
// version of the client as soon as that is harmless.
//
// A new server version changes sw.js; the browser installs the new worker,
// which takes over at once (skipWaiting + clients.claim). A page that was
// already controlled by the old worker then reloads, but never in the middle of
// a game: it waits until the table is not on screen (a reload would keep the
// seat anyway, the token is remembered).

export function registerWorker() {
  if (!("serviceWorker" in navigator) || !window.isSecureContext) return;
  const hadWorker = Boolean(navigator.serviceWorker.controller);
  let reloading = false;
  const reloadWhenIdle = () => {
    if (reloading) return;
    if (document.body.dataset.screen !== "table") {
      reloading = true;
      location.reload();
      return;
    }
    const watch = new MutationObserver(() => {
      if (document.body.dataset.screen !== "table") {
        watch.disconnect();
        reloadWhenIdle();
      }
    });
    watch.observe(document.body, { attributes: true, attributeFilter: ["data-screen"] });
  };
  navigator.serviceWorker.addEventListener("controllerchange", () => {
    if (hadWorker) reloadWhenIdle(); // the first install only starts keeping files
  });
  // "none": the browser asks the server for sw.js every time, never its HTTP cache.
  navigator.serviceWorker.register("sw.js", { scope: "./", updateViaCache: "none" }).catch(() => {
    /* no worker (private mode, an old browser): the app works as a plain page */
  });
}
