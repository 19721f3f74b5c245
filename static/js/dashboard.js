// The dashboard: each unfinished job follows itself live; new jobs appear without a reload.
import { JobFollower, TERMINAL, localiseTimes, renderJob } from "./common.js";

const body = document.querySelector("[data-jobs]");
const table = document.querySelector("[data-jobs-table]");
const empty = document.querySelector("[data-jobs-empty]");
const rowTemplate = document.querySelector("[data-row-template]");
const summary = document.querySelector("[data-live-summary]");
const followers = new Map();
const LIMIT = 25;

function rowFor(state) {
  let row = body.querySelector(`tr[data-job-id="${state.job_id}"]`);
  if (row) return row;
  row = rowTemplate.content.firstElementChild.cloneNode(true);
  row.dataset.jobId = state.job_id;
  const link = row.querySelector("a");
  link.href = state.page_url || `/jobs/${state.job_id}/`;
  link.textContent = state.template_name || "Report";
  row.querySelector("[data-field=short_id]").textContent = state.job_id.slice(0, 8);
  row.querySelector("time").setAttribute("datetime", state.created_at);
  body.prepend(row);
  localiseTimes(row);
  table.hidden = false;
  empty.hidden = true;
  while (body.rows.length > LIMIT) body.lastElementChild.remove();
  return row;
}

function updateSummary() {
  const active = [...followers.keys()].length;
  summary.textContent = active
    ? `${active} ${active === 1 ? "job is" : "jobs are"} in progress; this page updates by itself.`
    : "";
}

function follow(state) {
  const row = rowFor(state);
  renderJob(row, state);
  if (TERMINAL.has(state.status) || followers.has(state.job_id)) return;
  const follower = new JobFollower(state.job_id, {
    onEvent(next) {
      renderJob(row, next);
      if (TERMINAL.has(next.status)) {
        followers.delete(state.job_id);
        updateSummary();
      }
    },
  });
  followers.set(state.job_id, follower);
  follower.start();
  updateSummary();
}

JSON.parse(document.getElementById("job-states").textContent)
  .reverse()
  .forEach(follow);

// Jobs created elsewhere (another tab, the API) show up within a few seconds.
async function refresh() {
  try {
    const response = await fetch(`/api/v1/jobs?limit=${LIMIT}`, { credentials: "same-origin" });
    if (response.ok) {
      const page = await response.json();
      const known = new Set([...body.rows].map((row) => row.dataset.jobId));
      page.results
        .filter((job) => !known.has(job.job_id))
        .reverse()
        .forEach((job) => follow({ ...job, template_name: job.template_name || "Report" }));
    }
  } finally {
    setTimeout(refresh, document.hidden ? 30000 : 5000);
  }
}
setTimeout(refresh, 5000);
