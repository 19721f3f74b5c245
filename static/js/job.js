// The job page: follow the job live and keep every field, button and timer current.
import { JobFollower, TERMINAL, renderJob, transportText } from "./common.js";

const state = JSON.parse(document.getElementById("job-state").textContent);
const transport = document.querySelector("[data-transport]");
let current = state;

renderJob(document, current);

// The elapsed time keeps counting between events.
const ticker = setInterval(() => {
  renderJob(document.querySelector("[data-field=elapsed]").parentElement, current);
  if (TERMINAL.has(current.status)) clearInterval(ticker);
}, 1000);

function show(kind, detail) {
  transport.textContent = transportText(kind, detail);
  transport.dataset.transport = kind;
}

if (TERMINAL.has(state.status)) {
  show("ended");
} else {
  new JobFollower(state.job_id, {
    onEvent(next) {
      current = next;
      renderJob(document, current);
      document.title = `${next.status === "completed" ? "✓ " : ""}${document.title.replace(/^✓ /, "")}`;
    },
    onTransport: show,
    onGone(reason) {
      transport.textContent =
        reason === "signed-out"
          ? "You are signed out; sign in again to follow this job."
          : "This job no longer exists.";
    },
  }).start();
}
