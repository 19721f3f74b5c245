// The run page: follow the run's Server-Sent Events and keep its counts and bar current;
// once it finishes, load the page again for its download and failed records.
const state = JSON.parse(document.getElementById("run-state").textContent);
const transport = document.querySelector("[data-run-transport]");
const field = (name) => document.querySelector(`[data-run-field="${name}"]`);
const LABELS = { running: "Running", completed: "Completed", partial: "Completed with failures", failed: "Failed" };

function render(run) {
  const done = run.completed + run.failed;
  field("done").textContent = done;
  field("completed").textContent = run.completed;
  field("failed").textContent = run.failed;
  field("percent").textContent = `${run.progress}%`;
  field("status").textContent = LABELS[run.status] || run.status;
  const bar = field("bar");
  // A percent, like every progress bar (common.js sizes them from aria-valuenow); the
  // record counts are its text.
  bar.setAttribute("aria-valuenow", run.progress);
  bar.setAttribute("aria-valuetext", `${done} of ${run.total} records`);
  bar.dataset.status = run.status === "running" ? "processing" : run.failed ? "failed" : "completed";
  bar.firstElementChild.style.width = `${run.progress}%`;
}

render(state);
if (state.status === "running") {
  const source = new EventSource(`/api/v1/runs/${state.run_id}/events`);
  source.onopen = () => { transport.textContent = "Live: updates as each record finishes."; };
  source.onmessage = (message) => {
    const run = JSON.parse(message.data);
    render(run);
    if (run.status !== "running") {
      source.close();
      transport.textContent = "Finished.";
      window.location.reload();
    }
  };
  source.onerror = () => { transport.textContent = "Reconnecting for live updates…"; };
}
