// New report: validate the JSON before it is sent; with a schema, offer a generated form.
// Either way one field, `data`, carries the JSON: the generated inputs are never posted.
import { buildSchemaForm } from "./schema_form.js";

const form = document.querySelector("[data-report-form]");
const textarea = document.getElementById("id_data");
const status = document.querySelector("[data-json-status]");
const sample = JSON.parse(document.getElementById("sample-data").textContent);
const schema = JSON.parse(document.getElementById("template-schema").textContent);
const schemaPanel = document.querySelector("[data-schema-form]");
const jsonPanel = document.querySelector("[data-json-panel]");
const tabField = document.querySelector("[data-tab-field]");
// The server's message about the data of the last submit; never replaced by the local check.
const serverError = document.querySelector("[data-server-error]");
let collect = null;

/** Parse the editor: {value} for a JSON object, else {error} saying what is wrong. */
function parseEditor() {
  let value;
  try {
    value = JSON.parse(textarea.value);
  } catch (error) {
    return { error: `Not valid JSON: ${error.message}` };
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return { error: "The data must be a JSON object, in braces: { … }." };
  }
  return { value };
}

function showValidity() {
  const { value, error } = parseEditor();
  textarea.setAttribute("aria-invalid", error ? "true" : "false");
  status.replaceChildren();
  const note = document.createElement("span");
  note.className = error ? "error-text" : "ok-text";
  note.textContent = error || `Valid JSON object with ${Object.keys(value).length} top-level fields.`;
  status.append(note);
  return !error;
}

let pending;
textarea.addEventListener("input", () => {
  clearTimeout(pending);
  pending = setTimeout(showValidity, 250);
});
document.querySelector("[data-format-json]").addEventListener("click", () => {
  const { value } = parseEditor();
  if (value) textarea.value = JSON.stringify(value, null, 2);
  showValidity();
});
document.querySelector("[data-reset-json]").addEventListener("click", () => {
  textarea.value = JSON.stringify(sample, null, 2);
  if (collect) collect = buildSchemaForm(schemaPanel, schema, sample);
  showValidity();
});

function selectTab(name) {
  for (const tab of document.querySelectorAll("[data-tab]")) {
    tab.setAttribute("aria-selected", String(tab.dataset.tab === name));
  }
  if (name === "json") {
    textarea.value = JSON.stringify(collect(), null, 2);
    showValidity();
  } else {
    const { value } = parseEditor();
    if (!value) return selectTab("json");
    collect = buildSchemaForm(schemaPanel, schema, value);
  }
  schemaPanel.hidden = name !== "form";
  jsonPanel.hidden = name !== "json";
  tabField.value = name;
}

if (schema && schemaPanel) {
  // The server rendered the tab the form was sent from; the editor keeps what was sent.
  const { value } = parseEditor();
  collect = buildSchemaForm(schemaPanel, schema, value || sample);
  for (const tab of document.querySelectorAll("[data-tab]")) {
    tab.addEventListener("click", () => selectTab(tab.dataset.tab));
  }
}

form.addEventListener("submit", (event) => {
  if (collect && !schemaPanel.hidden) {
    const invalid = [...schemaPanel.querySelectorAll("input, select, textarea")].find(
      (input) => !input.checkValidity(),
    );
    if (invalid) {
      event.preventDefault();
      invalid.reportValidity();
      return;
    }
    textarea.value = JSON.stringify(collect());
  }
  if (!showValidity()) {
    event.preventDefault();
    // Switching tabs rewrites the editor from the form: only do it from the form tab,
    // never over what the person typed in the editor.
    if (collect && jsonPanel.hidden) selectTab("json");
    textarea.focus();
  }
});

// After a refused submit the server's message says what is wrong; "Valid JSON" beside it
// would only contradict it.
if (textarea.value && !serverError) showValidity();
// Usable once the form is laid out and painted: the frame after the next one. The
// browser tests measure the time from navigation to this mark.
requestAnimationFrame(() =>
  setTimeout(() => {
    performance.mark("report-form-ready");
    form.dataset.ready = "true";
  }),
);

// The renderer select redraws the preview: the first page laid out by the chosen renderer.
const rendererSelect = document.getElementById("id_renderer");
const preview = document.querySelector("[data-preview]");
const previewRenderer = document.querySelector("[data-preview-renderer]");
if (rendererSelect && preview) {
  rendererSelect.addEventListener("change", () => {
    const chosen = rendererSelect.value;
    preview.classList.add("loading");
    preview.addEventListener("load", () => preview.classList.remove("loading"), { once: true });
    preview.src = `${preview.dataset.previewBase}?renderer=${encodeURIComponent(chosen)}`;
    previewRenderer.textContent = chosen;
  });
}
