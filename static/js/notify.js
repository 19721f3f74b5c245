// Job notices: when one of my jobs completes or fails while I am on another page, a notice
// in the corner (and a desktop notification, if this browser allows them and the tab is in
// the background). Loaded by base.html for signed-in people who keep them on (Account);
// it listens on the page's one subscription to my jobs (owner_feed.js).
import { formatBytes, jobLabel, pageText } from "./common.js";
import { followMyJobs } from "./owner_feed.js";

const box = document.querySelector("[data-toasts]");
const pageTime = Date.parse(document.body.dataset.pageTime);
const storeKey = `pdfreports.job-notices.${document.body.dataset.user}`;
// The job page shows its own job's end itself.
const ownJob = document.querySelector("section.job[data-job-id]")?.dataset.jobId;
// ...and the run page its run's.
const ownRun = document.querySelector("[data-run-id]")?.dataset.runId;
const REMEMBERED = 200;
const MAX_TOASTS = 4;

// Remembered across this person's pages and tabs: jobs seen running (so one that ends while
// the next page loads is still told) and jobs already told (so no page tells one twice).
function load() {
  try {
    const saved = JSON.parse(localStorage.getItem(storeKey) || "{}");
    return { running: saved.running || [], told: saved.told || [] };
  } catch {
    return { running: [], told: [] };
  }
}

function save(memory) {
  try {
    localStorage.setItem(
      storeKey,
      JSON.stringify({
        running: memory.running.slice(-REMEMBERED),
        told: memory.told.slice(-REMEMBERED),
      }),
    );
  } catch {
    // Storage off (private mode): notices still work on this page.
  }
}

function link(text, href) {
  const a = document.createElement("a");
  a.textContent = text;
  a.href = href;
  return a;
}

function describe(state) {
  const label = jobLabel(state);
  const name = label === "Inline" ? "Your inline report" : `“${label}”`;
  if (state.status === "completed") {
    const detail = [pageText(state), formatBytes(state.size_bytes)].filter(Boolean).join(" · ");
    return { title: `${name} is ready`, text: detail || "Your PDF is ready to download." };
  }
  const error = state.error || "The job failed.";
  return {
    title: `${name} failed`,
    text: error.length > 240 ? `${error.slice(0, 239)}…` : error,
  };
}

function toast(state) {
  const { title, text } = describe(state);
  const jobUrl = `/jobs/${state.job_id}/`;
  const node = document.createElement("div");
  node.className = "toast";
  node.dataset.status = state.status;
  node.dataset.jobId = state.job_id;
  const words = document.createElement("div");
  const heading = document.createElement("strong");
  heading.textContent = title;
  const detail = document.createElement("p");
  detail.textContent = text;
  const links = document.createElement("div");
  links.className = "toast-links";
  if (state.status === "completed") links.append(link("Download PDF", `${jobUrl}download`));
  links.append(link(state.status === "completed" ? "Open" : "See what to do", jobUrl));
  words.append(heading, detail, links);
  const close = document.createElement("button");
  close.type = "button";
  close.className = "toast-close";
  close.setAttribute("aria-label", `Dismiss: ${title}`);
  close.textContent = "×";
  close.addEventListener("click", () => node.remove());
  node.append(words, close);
  box.append(node);
  while (box.children.length > MAX_TOASTS) box.firstElementChild.remove();

  if (
    "Notification" in window &&
    Notification.permission === "granted" &&
    document.visibilityState === "hidden"
  ) {
    const desktop = new Notification(title, { body: text, tag: `job-${state.job_id}` });
    desktop.addEventListener("click", () => {
      window.focus();
      location.assign(jobUrl);
    });
  }
}

// A run is one thing to a person: its records tell nothing each; once one of them ends,
// the run is asked (at most once a RUN_CHECK_MS per run) and told once it has ended.
const RUN_CHECK_MS = 1500;
const runChecks = new Map();

function runToast(run) {
  const template = run.template_name || run.template;
  const name = template ? `Run of “${template}”` : "Batch";
  const node = document.createElement("div");
  node.className = "toast";
  node.dataset.status = run.status === "completed" ? "completed" : "failed";
  node.dataset.runId = run.run_id;
  const words = document.createElement("div");
  const heading = document.createElement("strong");
  heading.textContent = run.status === "failed" ? `${name} failed` : `${name} finished`;
  const detail = document.createElement("p");
  detail.textContent =
    `${run.completed} of ${run.total} records rendered` + (run.failed ? `, ${run.failed} failed` : "");
  const links = document.createElement("div");
  links.className = "toast-links";
  links.append(link("Open", `/runs/${run.run_id}/`));
  words.append(heading, detail, links);
  const close = document.createElement("button");
  close.type = "button";
  close.className = "toast-close";
  close.setAttribute("aria-label", `Dismiss: ${heading.textContent}`);
  close.textContent = "×";
  close.addEventListener("click", () => node.remove());
  node.append(words, close);
  box.append(node);
  while (box.children.length > MAX_TOASTS) box.firstElementChild.remove();
}

function checkRun(runId) {
  if (runChecks.has(runId) || runId === ownRun) return;
  runChecks.set(
    runId,
    setTimeout(async () => {
      try {
        const answer = await fetch(`/api/v1/runs/${runId}?records_limit=0`, {
          credentials: "same-origin",
          headers: { Accept: "application/json" },
        });
        if (!answer.ok) return; // a schedule's run, or not mine to see: nothing to tell
        const run = await answer.json();
        if (run.status === "running") return;
        const memory = load();
        const key = `run:${run.run_id}:${run.finished_at}`;
        if (memory.told.includes(key)) return;
        if (Date.parse(run.finished_at) >= pageTime) runToast(run);
        memory.told.push(key);
        save(memory);
      } catch {
        // Offline for a moment: the run's next record (or its page) tells it.
      } finally {
        runChecks.delete(runId);
      }
    }, RUN_CHECK_MS),
  );
}

function seen(state) {
  if (state.batch_id) {
    if (state.status === "completed" || state.status === "failed") checkRun(state.batch_id);
    return;
  }
  const memory = load(); // fresh each time: another tab may have told it meanwhile
  const id = state.job_id;
  const wasRunning = memory.running.includes(id);
  memory.running = memory.running.filter((other) => other !== id);
  if (state.status === "queued" || state.status === "processing") {
    memory.running.push(id);
    memory.told = memory.told.filter((other) => other !== id); // re-driven: its next end counts
  } else if (
    (state.status === "completed" || state.status === "failed") &&
    !memory.told.includes(id)
  ) {
    // Ended while this page was open (the server's clock on both sides), or was seen
    // running on an earlier page.
    const endedHere = Date.parse(state.completed_at) >= pageTime;
    if (id !== ownJob && (endedHere || wasRunning)) toast(state);
    if (id === ownJob || endedHere || wasRunning) memory.told.push(id);
  }
  save(memory);
}

if (box && !Number.isNaN(pageTime)) followMyJobs({ onEvent: seen });
