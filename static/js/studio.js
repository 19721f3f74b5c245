// The template studio: CodeMirror editors for a template's files, a debounced live preview
// rendered on the previews queue (POST templates/{slug}/preview with the unsaved source),
// the engine's and the schema's errors shown at their line, Ctrl/Cmd-S saving a draft, and
// publish / roll back / compare, all through the template API with the session.
const state = JSON.parse(document.getElementById("studio-state").textContent);
const root = document.querySelector("[data-studio]");
const $ = (selector) => root.querySelector(selector);
const API = `/api/v1/templates/${encodeURIComponent(state.slug)}`;
const csrf = document.querySelector("input[name=csrfmiddlewaretoken]").value;
const PREVIEW_PAGES = 5;
const DEBOUNCE_MS = 350;

const FILES = {
  html: { language: "html", label: "Template" },
  css: { language: "css", label: "CSS" },
  helpers: { language: "javascript", label: "Helpers" },
  schema: { language: "json", label: "JSON Schema" },
  sample_data: { language: "json", label: "Sample data" },
};
const JSON_FILES = new Set(["schema", "sample_data"]);

let saved = { ...state.source };  // what the server has (the draft, else the published)
let renderer = state.source.renderer;
let previewTimer = null;
let previewAbort = null;
let previewSeq = 0;
const editors = {};

function pretty(value) {
  return value && Object.keys(value).length ? JSON.stringify(value, null, 2) : "{}";
}

async function api(method, path, body) {
  const response = await fetch(`${API}${path}`, {
    method,
    headers: { "Content-Type": "application/json", "X-CSRFToken": csrf, Accept: "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: "same-origin",
    signal: body && body.signal,
  });
  const answer = await response.json().catch(() => ({ error: `HTTP ${response.status}` }));
  if (!response.ok) throw Object.assign(new Error(answer.error || `HTTP ${response.status}`), { answer, status: response.status });
  return answer;
}

// ------------------------------------------------------------------ current source
function parsed(file) {
  const text = editors[file].text.trim() || "{}";
  const value = JSON.parse(text);
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new SyntaxError("must be a JSON object, in braces: { … }");
  }
  return value;
}

/** The editors' source, or {problem} naming the JSON editor that does not parse. */
function currentSource() {
  const source = { html: editors.html.text, css: editors.css.text, helpers: editors.helpers.text };
  for (const file of JSON_FILES) {
    try {
      source[file] = parsed(file);
    } catch (error) {
      return { problem: { file, message: `${FILES[file].label}: ${error.message}` } };
    }
  }
  return { source };
}

function pageOptions() {
  // Only what differs from the defaults (or was set before) is written into the options.
  const options = { ...(saved.options || {}) };
  const size = $("[data-page-size]").value;
  const orientation = $("[data-orientation]").value;
  if (size !== "A4" || "page_size" in options) options.page_size = size;
  if (orientation !== "portrait" || "orientation" in options) options.orientation = orientation;
  return options;
}

function changedFields() {
  const { source, problem } = currentSource();
  if (problem) return { problem };
  const changes = {};
  for (const name of ["html", "css", "helpers"]) if (source[name] !== saved[name]) changes[name] = source[name];
  for (const name of JSON_FILES) if (JSON.stringify(source[name]) !== JSON.stringify(saved[name] || {})) changes[name] = source[name];
  if (renderer !== saved.renderer) changes.renderer = renderer;
  const options = pageOptions();
  if (JSON.stringify(options) !== JSON.stringify(saved.options || {})) changes.options = options;
  return { changes };
}

// ------------------------------------------------------------------ problems at their line
const FILE_OF_CODE = {
  template_syntax: "html", invalid_schema: "schema", invalid_data: "sample_data",
  helpers_error: "helpers", unknown_helper: "html",
};

function clearProblems() {
  for (const editor of Object.values(editors)) editor.showError(null);
  $("[data-problem]").hidden = true;
  for (const tab of root.querySelectorAll("[data-tab]")) tab.classList.remove("has-problem");
}

function showProblem(file, message, line) {
  clearProblems();
  const where = file && FILES[file] ? file : "html";
  editors[where].showError(message, line);
  const box = $("[data-problem]");
  box.replaceChildren();
  const title = document.createElement("strong");
  title.textContent = `${FILES[where].label}${line ? `, line ${line}` : ""}`;
  const text = document.createElement("span");
  text.textContent = message;
  box.append(title, text);
  box.hidden = false;
  root.querySelector(`[data-tab="${where}"]`).classList.add("has-problem");
}

function fileOfError(answer) {
  const message = answer.error || "";
  if (/helper/i.test(message) && answer.code !== "template_syntax") return "helpers";
  if (/^sample_data|does not match the schema|^data\b/i.test(message)) return "sample_data";
  if (/schema/i.test(message) && answer.code !== "invalid_data") return "schema";
  return FILE_OF_CODE[answer.code] || "html";
}

// ------------------------------------------------------------------ preview
function schedulePreview() {
  clearTimeout(previewTimer);
  $("[data-preview-state]").textContent = "Editing…";
  previewTimer = setTimeout(preview, DEBOUNCE_MS);
  updateSaveState();
}

async function preview() {
  const { source, problem } = currentSource();
  if (problem) {
    showProblem(problem.file, problem.message, null);
    $("[data-preview-state]").textContent = "Waiting for valid JSON";
    return;
  }
  if (previewAbort) previewAbort.abort();
  previewAbort = new AbortController();
  const seq = ++previewSeq;
  const started = performance.now();
  $("[data-preview-state]").textContent = "Rendering…";
  root.classList.add("is-rendering");
  try {
    const response = await fetch(`${API}/preview`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrf },
      credentials: "same-origin",
      signal: previewAbort.signal,
      body: JSON.stringify({
        html: source.html, css: source.css, helpers: source.helpers, schema: source.schema,
        data: source.sample_data, renderer, options: pageOptions(), pages: PREVIEW_PAGES, width: 800,
      }),
    });
    const answer = await response.json();
    if (seq !== previewSeq) return;  // a newer keystroke's preview is on its way
    if (!response.ok) {
      showProblem(fileOfError(answer), answer.error, answer.line);
      $("[data-preview-state]").textContent = response.status === 429 ? "Busy, retrying…" : "Not rendered";
      if (response.status === 429 || response.status === 503) previewTimer = setTimeout(preview, 1500);
      return;
    }
    clearProblems();
    showPages(answer.pages);
    const ms = Math.round(performance.now() - started);
    $("[data-preview-state]").textContent = answer.pages.length >= PREVIEW_PAGES
      ? `First ${answer.pages.length} pages` : `${answer.pages.length} page${answer.pages.length === 1 ? "" : "s"}`;
    // A file template is not laid out by a renderer: a PDF form is filled, a Word document
    // converted by LibreOffice.
    const made = !state.file ? renderer : state.source.engine === "docx" ? "LibreOffice" : "filled form";
    $("[data-preview-time]").textContent = `${ms} ms · ${made}`;
  } catch (error) {
    if (error.name !== "AbortError") $("[data-preview-state]").textContent = "Preview unavailable";
  } finally {
    if (seq === previewSeq) root.classList.remove("is-rendering");
  }
}

function showPages(urls) {
  const pages = $("[data-pages]");
  const images = urls.map((url, index) => {
    const figure = document.createElement("figure");
    figure.className = "studio-page";
    const img = document.createElement("img");
    img.src = url;
    img.alt = `Page ${index + 1}`;
    img.dataset.previewPage = String(index + 1);
    const caption = document.createElement("figcaption");
    caption.textContent = `${index + 1}`;
    figure.append(img, caption);
    return figure;
  });
  pages.replaceChildren(...images);
  pages.dataset.rendered = String(Number(pages.dataset.rendered || 0) + 1);
}

// ------------------------------------------------------------------ save, publish, roll back
function updateSaveState() {
  const { changes, problem } = changedFields();
  const dirty = problem || Object.keys(changes).length > 0;
  $("[data-save-state]").textContent = dirty ? "Unsaved changes" : state.draft_version ? "Draft saved" : "Saved";
  $("[data-save]").disabled = !state.editable || !dirty;
  $("[data-publish]").disabled = !state.can_publish || (!state.draft_version && !dirty);
}

function renderVersionPill() {
  const pill = $("[data-version-pill]");
  pill.className = state.draft_version ? "pill pill-draft" : "pill pill-live";
  pill.textContent = state.draft_version
    ? `Draft v${state.draft_version} · live v${state.published_version}`
    : `Published v${state.published_version}`;
  pill.title = state.published_by ? `Published by ${state.published_by}` : "";
  const options = state.versions.map((v) => v.number);
  fill($("[data-rollback-version]"), options.filter((n) => n !== state.published_version).map((n) => [n, `v${n}`]));
  const refs = [["published", `Published (v${state.published_version})`]];
  if (state.draft_version) refs.push(["draft", `Draft (v${state.draft_version})`]);
  for (const n of options) refs.push([String(n), `v${n}`]);
  fill($("[data-diff-from]"), refs, "published");
  fill($("[data-diff-to]"), refs, state.draft_version ? "draft" : "published");
  $("[data-rollback]").disabled = !state.can_publish || options.length < 2;
}

function fill(select, pairs, chosen) {
  select.replaceChildren(...pairs.map(([value, label]) => {
    const option = new Option(label, value, false, String(value) === String(chosen));
    return option;
  }));
}

function adopt(template) {
  // The template's JSON after a save, publish or rollback.
  state.published_version = template.version;
  state.draft_version = template.draft_version;
  state.published_by = template.published_by;
  const numbers = new Set(state.versions.map((v) => v.number));
  for (const n of [template.version, template.draft_version]) {
    if (n && !numbers.has(n)) state.versions.unshift({ number: n });
  }
  state.versions.sort((a, b) => b.number - a.number);
  const source = template.draft || template;
  saved = {
    engine: source.engine, renderer: source.renderer, html: source.html, css: source.css,
    helpers: source.helpers, schema: source.schema, sample_data: source.sample_data,
    options: source.options,
  };
  renderVersionPill();
  updateSaveState();
}

let saving = null;

/** Save the editors as a draft; one save at a time (a second Ctrl-S waits for the first). */
function save() {
  saving = (saving || Promise.resolve(true)).then(saveNow, saveNow);
  return saving;
}

async function saveNow() {
  const { changes, problem } = changedFields();
  if (problem) { showProblem(problem.file, problem.message, null); return false; }
  if (!Object.keys(changes).length) return true;
  $("[data-save-state]").textContent = "Saving…";
  try {
    adopt(await api("PATCH", "", changes));
    $("[data-save-state]").textContent = `Draft v${state.draft_version || state.published_version} saved`;
    return true;
  } catch (error) {
    const answer = error.answer || {};
    showProblem(fileOfError(answer), answer.error || error.message, answer.line);
    $("[data-save-state]").textContent = "Not saved";
    return false;
  }
}

async function publish() {
  if (!(await save())) return;
  try {
    adopt(await api("POST", "/publish"));
    $("[data-save-state]").textContent = `Published v${state.published_version}`;
  } catch (error) {
    $("[data-save-state]").textContent = error.message;
  }
}

/** Put the server's source (`saved`) into the editors and controls, and preview it. */
function loadEditors() {
  for (const file of Object.keys(FILES)) {
    const text = JSON_FILES.has(file) ? pretty(saved[file]) : saved[file] || "";
    if (editors[file].text !== text) editors[file].text = text;
  }
  renderer = saved.renderer;
  $("[data-renderer]").value = renderer;
  const options = saved.options || {};
  $("[data-page-size]").value = options.page_size || "A4";
  $("[data-orientation]").value = options.orientation || "portrait";
  clearTimeout(previewTimer);
  clearProblems();
  updateSaveState();
  preview();
}

function rollbackQuestion(number) {
  const { changes, problem } = changedFields();
  const lines = [`Roll back to v${number}? New jobs render v${number} from now on.`];
  lines.push(state.draft_version
    ? `Your draft v${state.draft_version} stays a draft and stays in the editor.`
    : `The editor and preview will show v${number}.`);
  if (problem || Object.keys(changes).length) lines.push("Your unsaved changes will be lost.");
  return lines.join("\n");
}

async function rollback() {
  const number = Number($("[data-rollback-version]").value);
  if (!number) return;
  if (!window.confirm(rollbackQuestion(number))) return;
  try {
    adopt(await api("POST", "/rollback", { version: number }));
    // The editors still hold what was live before: show what the server has now (the
    // version just made live, or the draft in progress), so Publish cannot undo the rollback.
    loadEditors();
    $("[data-save-state]").textContent = `Rolled back: v${number} is live`;
  } catch (error) {
    $("[data-save-state]").textContent = error.message;
  }
}

// ------------------------------------------------------------------ compare
async function compare() {
  const panel = $("[data-diff-panel]");
  panel.hidden = false;
  const from = $("[data-diff-from]").value;
  const to = $("[data-diff-to]").value;
  $("[data-diff-state]").textContent = "Rendering both…";
  try {
    const diff = await api("GET", `/diff?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`);
    const pages = diff.pages.map((page) => {
      const row = document.createElement("div");
      row.className = "studio-diff-row";
      row.dataset.changedPixels = String(page.changed_pixels);
      const head = document.createElement("p");
      head.className = page.changed_pixels ? "diff-changed" : "diff-same";
      head.textContent = `Page ${page.page}: ${page.changed_pixels ? `${page.changed_pixels.toLocaleString()} pixels changed` : "no change"}`;
      row.append(head);
      for (const [url, label] of [[page.before_png_url, `v${diff.from_version}`], [page.after_png_url, `v${diff.to_version}`], [page.overlay_png_url, "Changes"]]) {
        const figure = document.createElement("figure");
        if (url) {
          const img = document.createElement("img");
          img.src = url;
          img.alt = `${label}, page ${page.page}`;
          figure.append(img);
        }
        const caption = document.createElement("figcaption");
        caption.textContent = url ? label : `${label}: no such page`;
        figure.append(caption);
        row.append(figure);
      }
      return row;
    });
    $("[data-diff-pages]").replaceChildren(...pages);
    showSourceDiff(diff.source_diff);
    $("[data-diff-state]").textContent = `v${diff.from_version} → v${diff.to_version}`;
  } catch (error) {
    $("[data-diff-state]").textContent = error.message;
  }
}

function showSourceDiff(text) {
  const pre = $("[data-source-diff]");
  pre.replaceChildren(...(text || "No source change.\n").split("\n").map((line) => {
    const span = document.createElement("span");
    span.className = line.startsWith("+") ? "add" : line.startsWith("-") ? "del" : line.startsWith("@@") ? "hunk" : "";
    span.textContent = `${line}\n`;
    return span;
  }));
}

// ------------------------------------------------------------------ start
function selectTab(file) {
  for (const tab of root.querySelectorAll("[data-tab]")) tab.setAttribute("aria-selected", String(tab.dataset.tab === file));
  for (const panel of root.querySelectorAll("[data-editor]")) panel.hidden = panel.dataset.editor !== file;
  editors[file].focus();
}

function start() {
  for (const [file, { language, label }] of Object.entries(FILES)) {
    const doc = JSON_FILES.has(file) ? pretty(state.source[file]) : state.source[file] || "";
    editors[file] = window.StudioEditor.createEditor({
      parent: root.querySelector(`[data-editor="${file}"]`), doc, language, label,
      onChange: schedulePreview, onSave: save,
    });
  }
  for (const tab of root.querySelectorAll("[data-tab]")) tab.addEventListener("click", () => selectTab(tab.dataset.tab));
  fill($("[data-renderer]"), state.renderers.map((r) => [r, r]), renderer);
  $("[data-renderer]").addEventListener("change", (event) => { renderer = event.target.value; schedulePreview(); });
  const options = state.source.options || {};
  fill($("[data-page-size]"), state.page_sizes.map((s) => [s, s]), options.page_size || "A4");
  $("[data-orientation]").value = options.orientation || "portrait";
  $("[data-page-size]").addEventListener("change", schedulePreview);
  $("[data-orientation]").addEventListener("change", schedulePreview);
  $("[data-engine]").textContent = `${state.source.engine} engine`;
  $("[data-save]").addEventListener("click", save);
  $("[data-publish]").addEventListener("click", publish);
  $("[data-rollback]").addEventListener("click", rollback);
  $("[data-diff]").addEventListener("click", compare);
  $("[data-diff-run]").addEventListener("click", compare);
  $("[data-diff-close]").addEventListener("click", () => { $("[data-diff-panel]").hidden = true; });
  document.addEventListener("keydown", (event) => {
    // Outside the editors (whose own keymap saves and stops the event).
    if ((event.ctrlKey || event.metaKey) && event.key === "s" && !event.defaultPrevented) {
      event.preventDefault();
      save();
    }
  });
  if (!state.editable) for (const button of root.querySelectorAll("[data-save], [data-publish], [data-rollback], [data-rollback-version]")) button.hidden = true;
  // Only an engine that takes helpers shows their tab (Handlebars; a template that has some).
  root.querySelector('[data-tab="helpers"]').hidden = !state.helpers;
  // A file template (a PDF form, a Word document) is edited in its own program: its source
  // would show as base64 and the renderer and page do not apply; its bar uploads a new
  // version, and its schema and sample data stay editable here.
  if (state.file) {
    for (const name of ["html", "css"]) root.querySelector(`[data-tab="${name}"]`).hidden = true;
    for (const control of root.querySelectorAll("[data-renderer], [data-page-size], [data-orientation]")) {
      control.closest("label").hidden = true;
    }
    selectTab("sample_data");
  }
  saved.options = state.source.options || {};
  renderVersionPill();
  updateSaveState();
  root.dataset.ready = "true";
  preview();
}

if (window.StudioEditor) start();
else window.addEventListener("load", start);
