// A form generated from a JSON Schema (the common subset: object, array, string, number,
// integer, boolean, enum, pattern, format: date, minItems/maxItems), prefilled with data;
// collect() reads it back as JSON. The inputs carry no `name`: the page posts the collected
// JSON as one field, so data with thousands of values is one field, not thousands. The
// browser's checks are a convenience; the server validates the data against the schema.

// Arrays longer than this show their first rows, a count and "Show all": the rest stay as
// data until asked for, so a 50-page report's form opens at once.
export const SHOWN_ROWS = 5;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

let counter = 0;
const uid = (hint) => `sf-${hint.replace(/[^a-z0-9]+/gi, "-")}-${++counter}`;

function titleOf(schema, key) {
  if (schema.title) return schema.title;
  const words = String(key).replace(/[_-]+/g, " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function typeOf(schema) {
  if (Array.isArray(schema.type)) return schema.type.find((t) => t !== "null") || "string";
  if (schema.type) return schema.type;
  if (schema.properties) return "object";
  if (schema.items) return "array";
  if (schema.enum) return "string";
  return "json";
}

function el(tag, attrs = {}, children = []) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === false || value == null) continue;
    if (name === "text") node.textContent = value;
    else node.setAttribute(name, value === true ? "" : value);
  }
  node.append(...children);
  return node;
}

function enumInput(schema, value, id, required) {
  const choices = [...schema.enum];
  // A value outside the enum is shown as it is (the server will say what is wrong with it)
  // rather than silently replaced by the first choice.
  if (value !== undefined && !choices.some((choice) => choice === value)) choices.unshift(value);
  const options = choices.map((option) =>
    el("option", { value: JSON.stringify(option), text: String(option), selected: option === value }),
  );
  if (!required) options.unshift(el("option", { value: "", text: "—", selected: value === undefined }));
  const input = el("select", { id, required }, options);
  return { input, read: () => (input.value === "" ? undefined : JSON.parse(input.value)) };
}

function textInput(schema, value, id, required) {
  const text = value ?? "";
  const long = (schema.maxLength ?? 0) > 200 || String(text).length > 80;
  // type=date only for a value it can show: it would blank anything but YYYY-MM-DD.
  const date = schema.format === "date" && (text === "" || ISO_DATE.test(text));
  const kind = date ? "date" : { email: "email", uri: "url" }[schema.format] || "text";
  const attrs = { id, required, maxlength: schema.maxLength, minlength: schema.minLength };
  const input = long
    ? el("textarea", { ...attrs, rows: 3, text })
    : el("input", {
        ...attrs,
        type: kind,
        value: text,
        pattern: kind === "text" || kind === "url" ? schema.pattern : null,
        placeholder: schema.format === "date" && !date ? "YYYY-MM-DD" : null,
        title: schema.pattern ? `Must match ${schema.pattern}` : null,
      });
  return { input, read: () => (input.value === "" && !required ? undefined : input.value) };
}

/** Build the editor of one value; returns {node, read()} where read() gives the value. */
function build(schema, value, key, required) {
  const type = typeOf(schema);
  const label = titleOf(schema, key);
  if (type === "object") return buildObject(schema, value ?? {}, label);
  if (type === "array") return buildArray(schema, Array.isArray(value) ? value : [], label);
  const id = uid(String(key));
  const help = schema.description ? el("small", { class: "muted", text: schema.description }) : "";
  let input;
  let read;
  if (schema.enum) {
    ({ input, read } = enumInput(schema, value, id, required));
  } else if (type === "boolean") {
    input = el("input", { id, type: "checkbox", checked: Boolean(value) });
    read = () => input.checked;
    return { node: el("div", { class: "sf-field sf-check" }, [input, el("label", { for: id, text: label }), help]), read };
  } else if (type === "number" || type === "integer") {
    input = el("input", {
      id,
      type: "number",
      step: type === "integer" ? "1" : "any",
      min: schema.minimum,
      max: schema.maximum,
      required,
      value: value ?? "",
    });
    read = () => (input.value === "" ? undefined : Number(input.value));
  } else if (type === "json") {
    input = el("textarea", { id, rows: 3, class: "mono", text: JSON.stringify(value ?? null) });
    read = () => JSON.parse(input.value || "null");
  } else {
    ({ input, read } = textInput(schema, value, id, required));
  }
  return { node: el("div", { class: "sf-field" }, [el("label", { for: id, text: label }), input, help]), read };
}

function buildObject(schema, value, label) {
  const required = new Set(schema.required || []);
  const readers = [];
  const fieldset = el("fieldset", { class: "sf-object" }, [el("legend", { text: label })]);
  for (const [key, child] of Object.entries(schema.properties || {})) {
    const part = build(child, value[key], key, required.has(key));
    readers.push([key, part.read]);
    fieldset.append(part.node);
  }
  const read = () => {
    // Keys the schema does not describe are kept as they were.
    const out = { ...value };
    for (const [key, reader] of readers) {
      const got = reader();
      if (got === undefined) delete out[key];
      else out[key] = got;
    }
    return out;
  };
  return { node: fieldset, read };
}

function buildArray(schema, items, label) {
  const itemSchema = schema.items || {};
  const itemName = titleOf(itemSchema, "item").toLowerCase();
  const min = schema.minItems ?? 0;
  const max = schema.maxItems ?? Infinity;
  // Objects of a few plain values (a month and two numbers) are laid out as one row each.
  const props = Object.values(itemSchema.properties || {});
  const flat =
    typeOf(itemSchema) === "object" &&
    props.length <= 6 &&
    props.every((child) => !["object", "array", "json"].includes(typeOf(child)));
  const list = el("ol", { class: flat ? "sf-list sf-flat" : "sf-list" });
  const entries = [];
  const limits = el("small", { class: "muted sf-limits" });
  const rest = el("p", { class: "sf-more" });
  const addButton = el("button", { type: "button", class: "secondary small-button", text: `Add ${itemName}` });
  const fieldset = el("fieldset", { class: "sf-array" }, [el("legend", { text: label }), list, rest, addButton, limits]);
  // Rows not shown yet: kept as data, read back unchanged, built on "Show all".
  let hidden = items.slice(SHOWN_ROWS + 1 >= items.length ? items.length : SHOWN_ROWS);

  const refresh = () => {
    const count = entries.length + hidden.length;
    addButton.disabled = count >= max;
    for (const entry of entries) entry.remove.disabled = count <= min;
    const bounds = [min > 0 && `at least ${min}`, max < Infinity && `at most ${max}`].filter(Boolean);
    limits.textContent = bounds.length ? ` (${bounds.join(", ")})` : "";
    rest.hidden = hidden.length === 0;
    if (hidden.length) {
      showAll.textContent = `Show all ${count}`;
      rest.replaceChildren(el("span", { class: "muted", text: `Showing ${entries.length} of ${count}. ` }), showAll);
    }
  };
  const add = (itemValue) => {
    const part = build(itemSchema, itemValue, `${label} ${entries.length + 1}`, true);
    const remove = el("button", { type: "button", class: "secondary small-button", text: "Remove" });
    const item = el("li", {}, [part.node, remove]);
    const entry = { item, remove, read: part.read };
    remove.addEventListener("click", () => {
      entries.splice(entries.indexOf(entry), 1);
      item.remove();
      refresh();
    });
    entries.push(entry);
    list.append(item);
  };
  const showAll = el("button", { type: "button", class: "secondary small-button" });
  const expand = () => {
    const later = hidden;
    hidden = [];
    later.forEach(add);
  };
  showAll.addEventListener("click", () => {
    expand();
    refresh();
  });
  items.slice(0, items.length - hidden.length).forEach(add);
  addButton.addEventListener("click", () => {
    expand(); // a new row goes after every existing one
    add(typeOf(itemSchema) === "object" ? {} : undefined);
    refresh();
    list.lastElementChild.querySelector("input, select, textarea")?.focus();
  });
  refresh();
  return { node: fieldset, read: () => [...entries.map((entry) => entry.read()), ...hidden] };
}

/** Render a form for schema into container; returns collect() giving the data object. */
export function buildSchemaForm(container, schema, data) {
  const root = build({ ...schema, type: "object", title: schema.title || "Data" }, data, "data", true);
  container.replaceChildren(root.node);
  return () => root.read();
}
