// Shared by every page: friendly labels, locale formatting, job rendering, live following.

export const TERMINAL = new Set(["completed", "failed", "cancelled"]);

const STATUS_LABELS = {
  queued: "Queued",
  processing: "Processing",
  completed: "Completed",
  failed: "Failed",
  cancelled: "Cancelled",
};

// The stages the server sets (jobs/transitions.py, rendering/report.py, jobs/worker/execution.py,
// and jobs/worker/chunked.py); anything new still shows, humanised.
const STAGE_LABELS = {
  "": "Waiting for a worker",
  started: "Starting",
  rendering_template: "Filling in the template",
  rendering_charts: "Drawing charts",
  laying_out: "Laying out pages",
  converting: "Converting with LibreOffice",
  finishing: "Finishing the PDF",
  storing: "Saving the PDF",
  done: "Done",
  failed: "Stopped by an error",
  cancelled: "Cancelled",
  retry_scheduled: "A temporary error: trying again shortly",
  redriven: "Queued again, waiting for a worker",
};

/** How a job is listed: its template's name; an inline job by the name its PDF was given
 * (options.filename, or its page's <title>), else "Inline" (jobs/pages/job_state.py too). */
export function jobLabel(state) {
  if (state.template_name) return state.template_name;
  const drawn = `report-${String(state.job_id).replaceAll("-", "").slice(0, 8)}.pdf`;
  return state.filename && state.filename !== drawn ? state.filename : "Inline";
}

export function statusLabel(status) {
  return STATUS_LABELS[status] || humanise(status);
}

export function stageLabel(stage, status) {
  if (stage in STAGE_LABELS) return STAGE_LABELS[stage];
  if (status === "queued") return STAGE_LABELS[""];
  return humanise(stage);
}

function humanise(text) {
  const words = String(text || "").replace(/[_-]+/g, " ").trim();
  return words ? words[0].toUpperCase() + words.slice(1) : "";
}

const timeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });

export function formatTime(iso) {
  if (!iso) return "";
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? "" : timeFormat.format(date);
}

export function formatDuration(seconds) {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${s % 60} s`;
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}

export function formatBytes(bytes) {
  if (bytes == null) return "";
  const units = ["bytes", "KB", "MB", "GB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  const digits = unit === 0 ? 0 : 1;
  return `${new Intl.NumberFormat(undefined, { maximumFractionDigits: digits }).format(value)} ${units[unit]}`;
}

/** Every <time datetime> shown in the reader's own locale and time zone. */
export function localiseTimes(root = document) {
  for (const node of root.querySelectorAll("time[datetime]")) {
    const text = formatTime(node.getAttribute("datetime"));
    if (text) {
      node.textContent = text;
      node.title = new Date(node.getAttribute("datetime")).toString();
    }
  }
}

/** Seconds the job has taken so far (or took, once it ended). */
export function elapsedSeconds(state, now = Date.now()) {
  const start = Date.parse(state.started_at || state.created_at);
  if (Number.isNaN(start)) return null;
  const end = TERMINAL.has(state.status) && state.completed_at ? Date.parse(state.completed_at) : now;
  return (end - start) / 1000;
}

/** "8 pages" once the job is completed (the server counts pages only at the end). */
export function pageText(state) {
  if (state.status === "completed" && state.page_count != null) {
    return `${state.page_count} ${state.page_count === 1 ? "page" : "pages"}`;
  }
  return "";
}

function setField(root, name, fn) {
  for (const node of root.querySelectorAll(`[data-field="${name}"]`)) fn(node);
}

/** The checks the finished PDF passed or failed, as the job page renders them. */
function renderCompliance(node, compliance) {
  node.hidden = !compliance;
  if (!compliance) {
    node.replaceChildren();
    return;
  }
  const title = document.createElement("h3");
  title.textContent = `Checks${compliance.profile ? `: ${compliance.profile}` : ""}`;
  const list = document.createElement("ul");
  list.className = "compliance small";
  list.dataset.compliance = "";
  for (const check of compliance.checks || []) {
    const item = document.createElement("li");
    const mark = document.createElement("span");
    mark.setAttribute("aria-label", check.passed ? "passed" : "failed");
    mark.textContent = check.passed ? "✓" : "✗";
    const name = document.createElement("strong");
    name.textContent = check.name;
    item.append(mark, " ", name, `: ${check.detail}`);
    list.append(item);
  }
  if (compliance.signature) {
    const item = document.createElement("li");
    const { valid, signer, timestamp } = compliance.signature;
    item.textContent = `Signature ${valid ? "valid" : "NOT valid"}, signed by ${signer}`;
    if (timestamp) {
      const stamped = timestamp.valid ? "valid" : "NOT valid";
      item.textContent += `; timestamp ${timestamp.time} by ${timestamp.authority} (${stamped})`;
    }
    list.append(item);
  }
  node.replaceChildren(title, list);
}

/** Update every [data-field] and [data-show] element under root from a job state. */
export function renderJob(root, state) {
  setField(root, "status", (node) => {
    node.dataset.status = state.status;
    node.textContent = statusLabel(state.status);
  });
  const stage = stageLabel(state.stage, state.status);
  const pages = pageText(state);
  setField(root, "stage", (node) => {
    node.textContent = stage;
  });
  setField(root, "progress", (node) => {
    const value = Math.max(0, Math.min(100, Number(state.progress) || 0));
    node.setAttribute("aria-valuenow", String(value));
    node.setAttribute("aria-valuetext", `${value}% · ${stage}`);
    node.dataset.status = state.status;
    const fill = node.querySelector("span");
    if (fill) fill.style.width = `${value}%`;
  });
  setField(root, "percent", (node) => {
    node.textContent = `${Math.round(Number(state.progress) || 0)}%`;
  });
  setField(root, "pages", (node) => {
    node.textContent = state.status === "completed" ? pages : "";
  });
  setField(root, "attempts", (node) => {
    node.textContent = String(state.total_attempts ?? state.attempts ?? "");
  });
  setField(root, "advice", (node) => {
    node.textContent = state.advice || "";
  });
  // Retry only where it can help: a template or data error says what to change instead.
  for (const form of root.querySelectorAll("[data-retry]")) {
    form.hidden = !state.retryable;
  }
  setField(root, "error", (node) => {
    node.textContent = state.error || "";
  });
  setField(root, "error_code", (node) => {
    node.textContent = state.error_code ? `Error code: ${state.error_code}` : "";
  });
  setField(root, "summary", (node) => {
    const parts = [pageText(state), formatBytes(state.size_bytes)].filter(Boolean);
    node.textContent = parts.join(" · ");
  });
  setField(root, "warnings", (node) => {
    node.replaceChildren(
      ...(state.warnings || []).map((text) => {
        const item = document.createElement("li");
        item.textContent = text;
        return item;
      }),
    );
  });
  setField(root, "compliance", (node) => renderCompliance(node, state.compliance));
  setField(root, "elapsed", (node) => {
    const seconds = elapsedSeconds(state);
    node.textContent = seconds == null ? "–" : formatDuration(seconds);
  });
  for (const node of root.querySelectorAll("[data-show]")) {
    node.hidden = !node.dataset.show.split(" ").includes(state.status);
  }
}

function backoff(attempt) {
  // Exponential with jitter, 1 s up to 30 s, so many tabs do not reconnect in step.
  const ceiling = Math.min(30000, 1000 * 2 ** attempt);
  return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
}

/**
 * Follows one job: WebSocket first, Server-Sent Events if WebSocket cannot connect,
 * polling the status URL as the last resort. Reconnects with backoff; drops events it
 * already has (by seq), so a resumed stream never moves the display backwards.
 */
export class JobFollower {
  // Where each transport lives; OwnerJobsFollower points them at the owner-wide feed.
  get wsPath() {
    return `/ws/jobs/${this.jobId}/`;
  }

  get ssePath() {
    return `/api/v1/jobs/${this.jobId}/events`;
  }

  get pollPath() {
    return `/api/v1/jobs/${this.jobId}`;
  }

  pollInterval = 1000;

  /** The states in a poll answer. */
  polled(body) {
    return [body];
  }

  constructor(jobId, { onEvent, onTransport = () => {}, onGone = () => {}, transport } = {}) {
    this.jobId = jobId;
    this.onEvent = onEvent;
    this.onTransport = onTransport;
    this.onGone = onGone;
    this.forced = transport || new URLSearchParams(location.search).get("transport");
    this.lastSeq = -1;
    this.done = false;
    this.wsFailures = 0;
    this.attempt = 0;
    this.timer = null;
  }

  start() {
    const mode = this.forced;
    if (mode === "sse") this.trySse();
    else if (mode === "poll") this.tryPoll();
    else if (typeof WebSocket === "function") this.tryWs();
    else this.trySse();
  }

  stop() {
    this.done = true;
    clearTimeout(this.timer);
    clearInterval(this.pingTimer);
    if (this.ws) this.ws.close(1000);
    if (this.es) this.es.close();
  }

  handle(state) {
    if (this.done || typeof state.seq !== "number" || state.seq <= this.lastSeq) return;
    this.lastSeq = state.seq;
    this.attempt = 0;
    this.onEvent(state);
    if (TERMINAL.has(state.status)) {
      this.stop();
      this.onTransport("ended", state);
    }
  }

  later(what, fn) {
    const delay = backoff(this.attempt);
    this.attempt += 1;
    this.onTransport("reconnecting", { via: what, seconds: Math.ceil(delay / 1000) });
    clearTimeout(this.timer);
    this.timer = setTimeout(() => !this.done && fn(), delay);
  }

  tryWs() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const ws = new WebSocket(`${scheme}://${location.host}${this.wsPath}`);
    this.ws = ws;
    let opened = false;
    let lastPong = Date.now();
    ws.onopen = () => {
      opened = true;
      this.wsFailures = 0;
      this.onTransport("websocket");
      // Application-level ping: keeps idle proxies from closing the socket and lets
      // us notice a dead connection, which the browser's WebSocket never reports.
      this.pingTimer = setInterval(() => {
        if (Date.now() - lastPong > 45000) ws.close(4000);
        else ws.send(JSON.stringify({ type: "ping" }));
      }, 20000);
    };
    ws.onmessage = (message) => {
      const data = JSON.parse(message.data);
      if (data.type === "pong") lastPong = Date.now();
      else this.handle(data);
    };
    ws.onclose = (event) => {
      clearInterval(this.pingTimer);
      if (this.done) return;
      if (event.code === 4401 || event.code === 4404) {
        this.stop();
        this.onGone(event.code === 4401 ? "signed-out" : "not-found");
        return;
      }
      if (!opened) {
        this.wsFailures += 1;
        // WebSocket blocked (a proxy, a firewall): stop trying it, use SSE.
        if (this.wsFailures >= 2) return this.trySse();
      }
      this.later("websocket", () => this.tryWs());
    };
  }

  trySse() {
    if (typeof EventSource !== "function") return this.tryPoll();
    const es = new EventSource(this.ssePath);
    this.es = es;
    let opened = false;
    es.onopen = () => {
      opened = true;
      this.onTransport("sse");
    };
    es.onmessage = (message) => this.handle(JSON.parse(message.data));
    es.onerror = () => {
      if (this.done) return;
      if (es.readyState === EventSource.CONNECTING) {
        // The browser reconnects by itself and sends Last-Event-ID to resume.
        this.onTransport("reconnecting", { via: "sse" });
        return;
      }
      es.close();
      if (!opened) this.tryPoll();
      else this.later("sse", () => this.trySse());
    };
  }

  tryPoll() {
    this.onTransport("polling");
    const poll = async () => {
      if (this.done) return;
      try {
        const response = await fetch(this.pollPath, {
          credentials: "same-origin",
          headers: { Accept: "application/json" },
        });
        if (response.status === 404) return this.onGone("not-found");
        if (response.status === 401 || response.status === 403) return this.onGone("signed-out");
        if (!response.ok) throw new Error(`HTTP ${response.status}`);
        for (const state of this.polled(await response.json())) this.handle(state);
        if (this.done) return;
        this.onTransport("polling");
        this.timer = setTimeout(poll, this.pollInterval);
      } catch {
        this.later("polling", poll);
      }
    };
    poll();
  }
}

/**
 * Follows all of the signed-in person's jobs on one subscription (the dashboard): the same
 * WebSocket -> SSE -> polling fallback, never ending by itself; drops events it already
 * has per job (by seq).
 */
export class OwnerJobsFollower extends JobFollower {
  get wsPath() {
    return "/ws/jobs/";
  }

  get ssePath() {
    return "/api/v1/jobs/events";
  }

  get pollPath() {
    return `/api/v1/jobs?limit=${this.limit}`;
  }

  pollInterval = 3000;

  constructor(options = {}) {
    super(null, options);
    this.limit = options.limit || 25;
    this.seen = new Map();
  }

  polled(body) {
    return [...body.results].reverse();
  }

  handle(state) {
    if (this.done || typeof state.seq !== "number") return;
    if (state.seq <= (this.seen.get(state.job_id) ?? -1)) return;
    this.seen.set(state.job_id, state.seq);
    this.attempt = 0;
    this.onEvent(state);
  }
}

/** A sentence telling the reader how the page stays current. */
export function transportText(kind, detail = {}) {
  switch (kind) {
    case "websocket":
      return "Live: updates arrive as they happen (WebSocket).";
    case "sse":
      return "Live: updates arrive as they happen (server-sent events).";
    case "polling":
      return "Checking for updates every second.";
    case "reconnecting":
      return detail.seconds
        ? `Connection lost; reconnecting in ${detail.seconds} s…`
        : "Connection lost; reconnecting…";
    case "ended":
      return "";
    default:
      return "";
  }
}

/** Size server-rendered progress bars from aria-valuenow: a style attribute in the markup
 * would need 'unsafe-inline' in the Content-Security-Policy. */
export function sizeProgressBars(root = document) {
  for (const bar of root.querySelectorAll('[role="progressbar"][aria-valuenow]')) {
    const fill = bar.querySelector("span");
    const value = Math.max(0, Math.min(100, Number(bar.getAttribute("aria-valuenow")) || 0));
    if (fill) fill.style.width = `${value}%`;
  }
}

document.addEventListener("DOMContentLoaded", () => {
  localiseTimes();
  sizeProgressBars();
});

// The nav's Manage menu closes on a click elsewhere or Escape, as a menu does.
document.addEventListener("click", (event) => {
  for (const menu of document.querySelectorAll("details[data-nav-menu][open]")) {
    if (!menu.contains(event.target)) menu.open = false;
  }
});
document.addEventListener("keydown", (event) => {
  if (event.key !== "Escape") return;
  for (const menu of document.querySelectorAll("details[data-nav-menu][open]")) {
    menu.open = false;
    menu.querySelector("summary").focus();
  }
});
