// One subscription to all of the signed-in person's jobs per page (WebSocket -> SSE ->
// polling, see OwnerJobsFollower), shared by every module that needs it: the dashboard's
// rows and the job notices of base.html. Modules subscribe while they load; the feed starts
// once they all have (module scripts run before DOMContentLoaded).
import { OwnerJobsFollower } from "./common.js";

const listeners = [];
let follower = null;
let seed = [];

function each(method, ...args) {
  for (const listener of listeners) listener[method]?.(...args);
}

function start() {
  // States the page was rendered with come first, marked initial, and count as seen.
  for (const state of seed) {
    follower.seen.set(state.job_id, state.seq);
    each("onEvent", state, { initial: true });
  }
  follower.start();
}

/** Listen to my jobs: onEvent(state, {initial}), onTransport(kind, detail), onGone(reason). */
export function followMyJobs(listener) {
  listeners.push(listener);
  if (follower) return;
  follower = new OwnerJobsFollower({
    limit: 25,
    onEvent: (state) => each("onEvent", state, { initial: false }),
    onTransport: (kind, detail) => each("onTransport", kind, detail),
    onGone: (reason) => each("onGone", reason),
  });
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start, { once: true });
  } else {
    queueMicrotask(start);
  }
}

/** The states the page was rendered with (oldest first). */
export function seedMyJobs(states) {
  seed = states;
}
