// The dashboard: one live subscription for all of my jobs; rows change and new jobs appear
// without a reload.
import { TERMINAL, jobLabel, localiseTimes, renderJob } from "./common.js";
import { followMyJobs, seedMyJobs } from "./owner_feed.js";

const body = document.querySelector("[data-jobs]");
const table = document.querySelector("[data-jobs-table]");
const empty = document.querySelector("[data-jobs-empty]");
const rowTemplate = document.querySelector("[data-row-template]");
const summary = document.querySelector("[data-live-summary]");
const LIMIT = 25;
const running = new Set();

function rowFor(state) {
  let row = body.querySelector(`tr[data-job-id="${state.job_id}"]`);
  if (row) return row;
  row = rowTemplate.content.firstElementChild.cloneNode(true);
  row.dataset.jobId = state.job_id;
  const link = row.querySelector("a");
  link.href = `/jobs/${state.job_id}/`;
  link.textContent = jobLabel(state);
  row.querySelector("[data-field=short_id]").textContent = state.job_id.slice(0, 8);
  row.querySelector("time").setAttribute("datetime", state.created_at);
  body.prepend(row);
  localiseTimes(row);
  table.hidden = false;
  empty.hidden = true;
  while (body.rows.length > LIMIT) body.lastElementChild.remove();
  return row;
}

function show(state) {
  renderJob(rowFor(state), state);
  if (TERMINAL.has(state.status)) running.delete(state.job_id);
  else running.add(state.job_id);
  const active = running.size;
  summary.textContent = active
    ? `${active} ${active === 1 ? "job is" : "jobs are"} in progress; this page updates by itself.`
    : "";
}

// The page's one subscription, shared with the job notices (owner_feed.js).
seedMyJobs(JSON.parse(document.getElementById("job-states").textContent).reverse());
followMyJobs({
  onEvent: show,
  onTransport(kind) {
    document.body.dataset.transport = kind;
  },
  onGone() {
    summary.textContent = "You are signed out; sign in again to see live updates.";
  },
});
