// One WebSocket connection to the server (protocol 1, docs/protocol.md).
//
// A Conn says hello (with its token when it has one), keeps the token the
// server hands out, queues messages until the welcome arrives, and reconnects
// with the same token after a drop, which gives the seat back and a resync.
// A message answered `unavailable` (cluster mode: the room is changing server)
// is sent again after the `retry_after` the server names, a few times, as
// docs/protocol.md asks; the app hears of the error marked `retrying`.

export const PROTOCOL = 1;

/** How many times a message answered `unavailable` is sent again. */
export const UNAVAILABLE_TRIES = 5;

/** The heartbeat (docs/protocol.md, "Connection and heartbeat"): a `ping`
 * every PING_EVERY ms; no message at all for PONG_WAIT ms after one means the
 * connection is gone (the network dropped without a close), so the client says
 * so at once and reconnects. The browser's `offline` event does the same
 * sooner. */
export const PING_EVERY = 5000;
export const PONG_WAIT = 4000;

export function wsUrl() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  return `${scheme}://${location.host}/ws`;
}

export class Conn {
  /**
   * @param {object} o
   * @param {string} o.name      display name (1-12 characters, docs/protocol.md "Names")
   * @param {string|null} o.token  token from an earlier welcome, if any
   * @param {(msg: object, conn: Conn) => void} o.onMessage
   * @param {(state: string, conn: Conn) => void} [o.onState]  "open" | "reconnecting" | "closed" | "replaced"
   * @param {(token: string, conn: Conn) => void} [o.onToken]
   */
  constructor({ name, token = null, onMessage, onState = () => {}, onToken = () => {}, label = "" }) {
    this.name = name;
    this.token = token;
    this.label = label;
    this.onMessage = onMessage;
    this.onState = onState;
    this.onToken = onToken;
    this.ws = null;
    this.ready = false;
    this.queue = [];
    this.stopped = false;
    this.retries = 0;
    this.timer = null;
    this.welcomeWaiters = [];
    this.waiters = [];
    /** The last message sent of each type, and how often it was sent again. */
    this.sent = new Map();
    this.lastHeard = 0;
    this.heartbeat = null;
    this.offline = false;
    this.onOffline = () => this.lost();
    this.onOnline = () => {
      this.offline = false;
      if (!this.stopped && !this.ready) {
        clearTimeout(this.timer);
        this.retries = 0;
        this.open();
      }
    };
    window.addEventListener("offline", this.onOffline);
    window.addEventListener("online", this.onOnline);
  }

  /** The network is gone (the browser says so, or the heartbeat went
   * unanswered): tell the app now, and reconnect as soon as it can. */
  lost() {
    if (this.stopped) return;
    this.offline = !navigator.onLine;
    const ws = this.ws;
    this.ws = null;
    this.ready = false;
    if (ws) ws.close();
    this.onState("reconnecting", this);
    clearTimeout(this.timer);
    if (!this.offline) this.timer = setTimeout(() => this.open(), Math.min(5000, 400 * 2 ** this.retries++));
  }

  beat() {
    clearInterval(this.heartbeat);
    this.heartbeat = setInterval(() => {
      if (!this.ready || !this.ws || this.ws.readyState !== WebSocket.OPEN) return;
      const sentAt = Date.now();
      this.ws.send(JSON.stringify({ type: "ping", t: sentAt }));
      setTimeout(() => {
        if (this.ready && this.lastHeard < sentAt) this.lost();
      }, PONG_WAIT);
    }, PING_EVERY);
  }

  /** A promise of the next message that ``pred`` accepts (a type name or a function). */
  next(pred, timeoutMs = 15000) {
    const test = typeof pred === "string" ? (m) => m.type === pred : pred;
    return new Promise((resolve, reject) => {
      const waiter = { test, resolve };
      this.waiters.push(waiter);
      setTimeout(() => {
        const i = this.waiters.indexOf(waiter);
        if (i >= 0) {
          this.waiters.splice(i, 1);
          reject(new Error("timeout"));
        }
      }, timeoutMs);
    });
  }

  open() {
    this.stopped = false;
    clearTimeout(this.timer);
    if (!navigator.onLine) {
      this.offline = true; // the "online" event opens it
      this.onState("reconnecting", this);
      return new Promise((resolve) => this.welcomeWaiters.push(resolve));
    }
    const ws = new WebSocket(wsUrl());
    this.ws = ws;
    this.ready = false;
    ws.addEventListener("open", () => {
      if (this.ws !== ws) return;
      const hello = { type: "hello", name: this.name, protocol: PROTOCOL };
      if (this.token) hello.token = this.token;
      ws.send(JSON.stringify(hello));
    });
    ws.addEventListener("message", (ev) => {
      if (this.ws !== ws) return;
      let msg;
      try {
        msg = JSON.parse(ev.data);
      } catch {
        return;
      }
      this.lastHeard = Date.now();
      if (msg.type === "pong") return;
      if (msg.type === "welcome") {
        this.token = msg.token;
        this.name = msg.name;
        this.onToken(msg.token, this);
        this.ready = true;
        this.retries = 0;
        this.beat();
        this.onState("open", this);
        const waiting = this.queue.splice(0);
        for (const m of waiting) ws.send(JSON.stringify(m));
        for (const resolve of this.welcomeWaiters.splice(0)) resolve(msg);
      } else if (msg.type === "error" && msg.code === "replaced") {
        this.stopped = true;
        this.onState("replaced", this);
      } else if (msg.type === "error" && msg.code === "bad_name" && !this.ready) {
        // A stored name the server refuses: fall back to a safe one.
        this.name = "Player";
      } else if (msg.type === "error" && msg.code === "unavailable") {
        msg.retrying = this.retryLater(msg);
      }
      this.onMessage(msg, this);
      for (const w of this.waiters.filter((x) => x.test(msg))) {
        this.waiters.splice(this.waiters.indexOf(w), 1);
        w.resolve(msg);
      }
    });
    ws.addEventListener("close", () => {
      if (this.ws !== ws) return;
      this.ready = false;
      if (this.stopped) {
        this.onState("closed", this);
        return;
      }
      this.onState("reconnecting", this);
      const delay = Math.min(5000, 400 * 2 ** this.retries);
      this.retries += 1;
      this.timer = setTimeout(() => this.open(), delay);
    });
    return new Promise((resolve) => this.welcomeWaiters.push(resolve));
  }

  /**
   * Send again, after `retry_after` seconds, the message an `unavailable`
   * answers (named by its `ref`), unless another of its type was sent since
   * or it was tried often enough. True if it will be sent again.
   */
  retryLater(error) {
    const last = this.sent.get(error.ref);
    if (!last || last.tries >= UNAVAILABLE_TRIES) return false;
    last.tries += 1;
    const delay = Math.max(0.1, Number(error.retry_after) || 1) * 1000;
    setTimeout(() => {
      if (this.sent.get(error.ref) === last && !this.stopped) this.transmit(last.msg);
    }, delay);
    return true;
  }

  /** Send now, or as soon as the server has welcomed us. */
  send(msg) {
    this.sent.set(msg.type, { msg, tries: 0 });
    this.transmit(msg);
  }

  transmit(msg) {
    if (this.ready && this.ws && this.ws.readyState === WebSocket.OPEN) {
      this.ws.send(JSON.stringify(msg));
    } else {
      this.queue.push(msg);
    }
  }

  /** Reconnect under another display name (same token, same seat). */
  rename(name) {
    this.name = name;
    const ws = this.ws;
    this.ws = null;
    if (ws) ws.close();
    return this.open();
  }

  close() {
    this.stopped = true;
    clearTimeout(this.timer);
    clearInterval(this.heartbeat);
    const ws = this.ws;
    this.ws = null;
    this.ready = false;
    if (ws) ws.close();
  }
}
