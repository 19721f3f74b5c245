// Ops dashboard: draws the snapshot the page was served with (uPlot charts, tables), then
// refreshes it from the JSON feed every few seconds. No build step; uPlot is vendored.
/* global uPlot */

const root = document.querySelector(".ops");
const feed = root.dataset.feed;
const refreshMs = Number(root.dataset.refreshSeconds) * 1000;
let range = JSON.parse(document.getElementById("ops-snapshot").textContent).range;
let bucketSeconds = 60;
const charts = {};

const COLORS = { completed: "#059669", failed: "#dc2626", p50: "#1d4ed8", p95: "#f59e0b", rate: "#dc2626" };
const QUEUE_COLORS = ["#1d4ed8", "#7c3aed", "#0891b2", "#ca8a04"];

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value !== null && value !== undefined) node.setAttribute(key, value);
  }
  for (const child of children) node.append(child instanceof Node ? child : String(child ?? ""));
  return node;
}

function link(href, text) {
  return el("a", { href }, text);
}

function shortId(id) {
  return id.slice(0, 8);
}

function ago(iso) {
  const seconds = Math.max(0, (Date.now() - Date.parse(iso)) / 1000);
  if (seconds < 90) return `${Math.round(seconds)} s ago`;
  if (seconds < 5400) return `${Math.round(seconds / 60)} min ago`;
  return `${(seconds / 3600).toFixed(1)} h ago`;
}

function chartSize(container) {
  return { width: Math.max(280, container.clientWidth), height: 200 };
}

// A series with one value (the first bucket with finished jobs, the first queue sample)
// has no line to draw: show its points, so one bucket is a dot rather than an empty chart.
// A single x value gives uPlot no width either: pad the x range by a bucket each side.
function xRange(u, min, max) {
  if (min !== max) return [min, max];
  return [min - bucketSeconds, max + bucketSeconds];
}

function drawChart(id, series, data) {
  const container = document.getElementById(id);
  const sparse = series.map((_, i) => data[i + 1].filter((v) => v !== null && v !== undefined).length <= 2);
  const few = sparse.join();
  series = series.map((s, i) => ({ ...s, points: { show: sparse[i], size: 9, fill: s.stroke } }));
  if (charts[id] && charts[id].series.length === series.length + 1 && charts[id].few === few) {
    charts[id].setData(data);
    return;
  }
  if (charts[id]) charts[id].destroy();
  container.replaceChildren();
  charts[id] = new uPlot(
    {
      ...chartSize(container),
      series: [{}, ...series],
      axes: [{}, { size: 50 }],
      scales: { x: { time: true, range: xRange } },
      legend: { live: false },
      cursor: { drag: { x: false, y: false } },
    },
    data,
    container,
  );
  charts[id].few = few;
}

function draw(snapshot) {
  const jobs = snapshot.jobs;
  bucketSeconds = snapshot.bucket_seconds || bucketSeconds;
  drawChart(
    "chart-throughput",
    [
      { label: "completed", stroke: COLORS.completed, fill: "rgba(5,150,105,.12)", width: 2 },
      { label: "failed", stroke: COLORS.failed, fill: "rgba(220,38,38,.12)", width: 2 },
    ],
    [jobs.t, jobs.completed, jobs.failed],
  );
  drawChart(
    "chart-latency",
    [
      { label: "p50", stroke: COLORS.p50, width: 2, spanGaps: true },
      { label: "p95", stroke: COLORS.p95, width: 2, spanGaps: true },
    ],
    [jobs.t, jobs.p50, jobs.p95],
  );
  drawChart(
    "chart-failures",
    [{ label: "failed %", stroke: COLORS.rate, width: 2, spanGaps: true }],
    [jobs.t, jobs.failure_rate.map((r) => (r === null ? null : r * 100))],
  );
  const queues = snapshot.queues;
  const names = Object.keys(queues).filter((k) => k !== "t");
  if (names.length) {
    drawChart(
      "chart-queues",
      names.map((name, i) => ({ label: name, stroke: QUEUE_COLORS[i % QUEUE_COLORS.length], width: 2 })),
      [queues.t, ...names.map((n) => queues[n])],
    );
  } else {
    document.getElementById("chart-queues").replaceChildren(
      el("p", { class: "muted small" }, "No samples yet: beat records one a minute."),
    );
  }
  drawAlerts(snapshot.alerts);
  drawStats(snapshot);
  drawTables(snapshot);
  const updated = document.getElementById("ops-updated");
  updated.dateTime = snapshot.generated_at;
  updated.textContent = new Date(snapshot.generated_at).toLocaleTimeString();
}

function drawAlerts(alerts) {
  const list = document.getElementById("ops-alerts");
  if (!alerts.length) {
    list.replaceChildren(el("li", { class: "muted" }, "No alerts in the last 24 hours."));
    return;
  }
  list.replaceChildren(
    ...alerts.map((a) =>
      el(
        "li",
        { class: a.open ? "alert-open" : "alert-resolved" },
        el("span", { class: "status", "data-status": a.open ? "failed" : "completed" }, a.open ? "open" : "resolved"),
        " ",
        link(a.url, a.rule),
        ` · opened ${ago(a.opened_at)}`,
        a.resolved_at ? ` · resolved ${ago(a.resolved_at)}` : "",
        // While open: the rule's reading at this refresh, then what opened it.
        a.now ? el("div", { class: "small", "data-alert-now": "" }, `Now: ${a.now}`) : "",
        el("div", { class: "small muted" }, a.open && a.now ? `When it opened: ${a.message}` : a.message),
      ),
    ),
  );
}

function drawStats(snapshot) {
  const hour = snapshot.last_hour;
  const finished = hour.completed + hour.failed;
  const broker = snapshot.broker;
  const depth = broker ? Object.values(broker.queues).reduce((a, q) => a + q.depth, 0) : "?";
  const stat = (label, value) =>
    el("div", { class: "stat card" }, el("strong", {}, value), el("span", { class: "small muted" }, label));
  document.getElementById("ops-stats").replaceChildren(
    stat("completed, last hour", hour.completed),
    stat("failed, last hour", hour.failed),
    stat("failure rate, last hour", finished ? `${((100 * hour.failed) / finished).toFixed(1)} %` : "–"),
    stat("average generation, last hour", hour.average_seconds === null ? "–" : `${hour.average_seconds.toFixed(1)} s`),
    stat("waiting in queues", depth),
    stat("workers alive", broker ? broker.workers_alive : "broker down"),
  );
}

function rows(tbody, items, empty, cells) {
  const body = document.getElementById(tbody);
  if (!items.length) {
    body.replaceChildren(el("tr", {}, el("td", { colspan: 4, class: "muted" }, empty)));
    return;
  }
  body.replaceChildren(...items.map((item) => el("tr", {}, ...cells(item).map((c) => el("td", {}, c)))));
}

function drawTables(snapshot) {
  rows("ops-slowest", snapshot.slowest, "No completed jobs in the last hour.", (j) => [
    link(j.url, shortId(j.job_id)),
    j.template,
    `${j.seconds.toFixed(1)} s`,
    j.pages ?? "",
  ]);
  rows("ops-failed", snapshot.failed, "No failed jobs in the last hour.", (j) => [
    link(j.url, shortId(j.job_id)),
    el("span", {}, el("code", {}, j.error_code), " ", el("span", { class: "small muted" }, j.error)),
    j.attempts,
    j.dead_letter_url ? link(j.dead_letter_url, "dead letter") : "–",
  ]);
  rows("ops-workers", snapshot.workers, "No worker alive.", (w) => [
    w.hostname,
    w.queues.join(", "),
    w.children,
    w.jobs.length
      ? el("span", {}, ...w.jobs.map((j) => el("span", { class: "small" }, link(j.url, shortId(j.job_id)), ` ${j.stage} ${j.progress}% `)))
      : el("span", { class: "muted small" }, "idle"),
  ]);
}

async function refresh() {
  try {
    const response = await fetch(`${feed}?range=${encodeURIComponent(range)}`, { headers: { Accept: "application/json" } });
    if (response.ok) draw(await response.json());
  } catch {
    // offline for a moment: the next tick tries again
  }
}

for (const anchor of document.querySelectorAll(".ranges a")) {
  anchor.addEventListener("click", (event) => {
    event.preventDefault();
    range = anchor.dataset.range;
    for (const other of document.querySelectorAll(".ranges a")) other.removeAttribute("aria-current");
    anchor.setAttribute("aria-current", "true");
    history.replaceState(null, "", `?range=${range}`);
    refresh();
  });
}

window.addEventListener("resize", () => {
  for (const [id, chart] of Object.entries(charts)) chart.setSize(chartSize(document.getElementById(id)));
});

draw(JSON.parse(document.getElementById("ops-snapshot").textContent));
setInterval(refresh, refreshMs);
