// @ts-check
// The service's API: JSON over fetch, and live WebSockets that reconnect by themselves.

export class ApiError extends Error {
  constructor(status, message, body) {
    super(message);
    this.status = status;
    this.body = body;
  }
}

/**
 * @param {string} method
 * @param {string} url
 * @param {{token?: string | null, body?: unknown}} [options]
 */
async function request(method, url, { token, body } = {}) {
  const headers = { Accept: "application/json" };
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  let response;
  try {
    response = await fetch(url, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: "no-store",
    });
  } catch (exc) {
    throw new ApiError(0, `network: ${exc.message}`, null);
  }
  let data = null;
  const text = await response.text();
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      data = null;
    }
  }
  if (!response.ok) {
    const message = data && typeof data.error === "string" ? data.error : `HTTP ${response.status}`;
    throw new ApiError(response.status, message, data);
  }
  return data;
}

/** A token kept for this tab only (sessionStorage under `key`): `get()` it ("" when none,
 *  or storage is off), `set(value)` it ("" forgets it). */
export function tokenStore(key) {
  return {
    get() {
      try {
        return sessionStorage.getItem(key) ?? "";
      } catch {
        return "";
      }
    },
    set(value) {
      try {
        if (value) sessionStorage.setItem(key, value);
        else sessionStorage.removeItem(key);
      } catch {
        // storage disabled: nothing kept
      }
    },
  };
}

export function getJSON(url, options) {
  return request("GET", url, options);
}

export function postJSON(url, body, options = {}) {
  return request("POST", url, { ...options, body });
}

export function putJSON(url, body, options = {}) {
  return request("PUT", url, { ...options, body });
}

// What the API's words are (tests/dashboard/test_api_words.py holds them to the Python
// definitions): a table id (firmware_bridge/messages.py TABLE_PATTERN) and the winds as
// the records write them (table_service/rules/tiles.py Wind).
export const TABLE_PATTERN = /^[A-Za-z0-9_-]{1,32}$/;
export const WINDS = ["E", "S", "W", "N"];

export const PAGE_MAX = 1000; // the most rows a list route gives in one page

/**
 * Every row of a list route (the service answers a page at a time, newest first, below
 * `before`), oldest first. For a list the page needs whole: the referee's open
 * violations, a session's records.
 */
export async function getAll(url, options) {
  const rows = [];
  let before = null;
  for (;;) {
    const page = new URL(url, location.origin);
    page.searchParams.set("limit", String(PAGE_MAX));
    if (before !== null) page.searchParams.set("before", String(before));
    const got = await getJSON(page.pathname + page.search, options);
    rows.push(...got);
    if (got.length < PAGE_MAX) break;
    before = got[got.length - 1].id;
  }
  return rows.reverse();
}

/**
 * A page's "read the records anew" on news: at once when the page has been quiet, else
 * once, `gap` ms after the last read began; never two reads at once. A burst of news (a
 * hand's end, a ruling's revised records) costs at most two reads, and the first news
 * shows without waiting out the gap. Returns `soon()`.
 */
export function reloader(read, gap) {
  let last = -Infinity;
  let timer = null;
  let reading = false;
  let wanted = false;
  async function run() {
    timer = null;
    reading = true;
    wanted = false;
    last = performance.now();
    try {
      await read();
    } finally {
      reading = false;
      if (wanted) soon();
    }
  }
  function soon() {
    if (reading) wanted = true; // what came meanwhile is read once this read is done
    else if (timer === null) timer = setTimeout(run, Math.max(0, last + gap - performance.now()));
  }
  return soon;
}

export const BACKOFF_FIRST = 500; // ms
export const BACKOFF_MAX = 10_000; // ms

/**
 * A WebSocket to the service that keeps itself connected: 0.5 s after a drop, doubling
 * to 10 s, reset once a connection has lasted. `onMessage(json)` for each message,
 * `onStatus(status, info)` with "connecting", "live" (from the first message of a
 * connection: the service's snapshot) or "reconnecting" ({retryIn} ms). The caller must
 * treat its data as stale whenever the status is not "live".
 */
export class LiveSocket {
  /**
   * @param {string} path
   * @param {{onMessage?: (data: any) => void, onStatus?: (status: string, info?: any) => void, onOpen?: () => void}} [handlers]
   */
  constructor(path, { onMessage, onStatus, onOpen } = {}) {
    this.path = path;
    this.onMessage = onMessage ?? (() => {});
    this.onStatus = onStatus ?? (() => {});
    this.onOpen = onOpen ?? (() => {});
    this.delay = BACKOFF_FIRST;
    this.ws = null;
    this.timer = null;
    this.stableTimer = null;
    this.closed = false;
    this.status = "connecting";
    this.connect();
    // A laptop that sleeps or a TV whose network blinks: try again at once when the
    // browser says the network is back or the page is shown again.
    window.addEventListener("online", () => this.retryNow());
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "visible") this.retryNow();
    });
  }

  url() {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    return `${scheme}//${location.host}${this.path}`;
  }

  setStatus(status, info = {}) {
    this.status = status;
    this.onStatus(status, info);
  }

  connect() {
    if (this.closed) return;
    clearTimeout(this.timer);
    this.timer = null;
    let ws;
    try {
      ws = new WebSocket(this.url());
    } catch {
      this.scheduleRetry();
      return;
    }
    this.ws = ws;
    let fresh = false; // live only once the service's first message (its snapshot) is in
    ws.addEventListener("open", () => {
      this.onOpen();
      // Only a connection that lasts resets the backoff (a server that accepts and drops
      // at once must not be hammered).
      this.stableTimer = setTimeout(() => {
        this.delay = BACKOFF_FIRST;
      }, 5000);
    });
    ws.addEventListener("message", (event) => {
      let data;
      try {
        data = JSON.parse(event.data);
      } catch {
        return;
      }
      if (!fresh) {
        fresh = true;
        this.setStatus("live");
      }
      this.onMessage(data);
    });
    ws.addEventListener("close", () => {
      clearTimeout(this.stableTimer);
      if (this.ws === ws) this.ws = null;
      this.scheduleRetry();
    });
    ws.addEventListener("error", () => {
      // "close" follows and schedules the retry
    });
  }

  scheduleRetry() {
    if (this.closed || this.timer) return;
    const wait = this.delay;
    this.delay = Math.min(this.delay * 2, BACKOFF_MAX);
    this.setStatus("reconnecting", { retryIn: wait });
    this.timer = setTimeout(() => {
      this.timer = null;
      this.connect();
    }, wait);
  }

  retryNow() {
    if (this.closed || this.ws) return;
    clearTimeout(this.timer);
    this.timer = null;
    this.connect();
  }

  close() {
    this.closed = true;
    clearTimeout(this.timer);
    clearTimeout(this.stableTimer);
    if (this.ws) this.ws.close();
  }
}
