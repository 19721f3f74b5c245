// A form generated from a JSON Schema (the common subset: object, array, string, number,
// integer, boolean, enum), prefilled with data; collect() reads it back as JSON.

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
    input = el(
      "select",
      { id, name: key, required },
      schema.enum.map((option) =>
        el("option", { value: JSON.stringify(option), text: String(option), selected: option === value }),
      ),
    );
    read = () => JSON.parse(input.value);
  } else if (type === "boolean") {
    input = el("input", { id, type: "checkbox", name: key, checked: Boolean(value) });
    read = () => input.checked;
    return { node: el("div", { class: "sf-field sf-check" }, [input, el("label", { for: id, text: label }), help]), read };
  } else if (type === "number" || type === "integer") {
    input = el("input", {
      id,
      name: key,
      type: "number",
      step: type === "integer" ? "1" : "any",
      min: schema.minimum,
      max: schema.maximum,
      required,
      value: value ?? "",
    });
    read = () => (input.value === "" ? undefined : Number(input.value));
  } else if (type === "json") {
    input = el("textarea", { id, name: key, rows: 3, class: "mono", text: JSON.stringify(value ?? null) });
    read = () => JSON.parse(input.value || "null");
  } else {
    const long = (schema.maxLength ?? 0) > 200 || String(value ?? "").length > 80;
    const kind = { date: "date", email: "email", uri: "url", "date-time": "datetime-local" }[schema.format];
    input = long
      ? el("textarea", { id, name: key, rows: 3, required, text: value ?? "" })
      : el("input", { id, name: key, type: kind || "text", required, maxlength: schema.maxLength, value: value ?? "" });
    read = () => (input.value === "" && !required ? undefined : input.value);
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
  const list = el("ol", { class: "sf-list" });
  const entries = [];
  const fieldset = el("fieldset", { class: "sf-array" }, [el("legend", { text: label }), list]);
  const add = (itemValue) => {
    const part = build(itemSchema, itemValue, `${label} ${entries.length + 1}`, true);
    const remove = el("button", { type: "button", class: "secondary small-button", text: "Remove" });
    const item = el("li", {}, [part.node, remove]);
    const entry = { item, read: part.read };
    remove.addEventListener("click", () => {
      entries.splice(entries.indexOf(entry), 1);
      item.remove();
    });
    entries.push(entry);
    list.append(item);
  };
  items.forEach(add);
  const addButton = el("button", { type: "button", class: "secondary small-button", text: `Add ${titleOf(itemSchema, "item").toLowerCase()}` });
  addButton.addEventListener("click", () => {
    add(typeOf(itemSchema) === "object" ? {} : undefined);
    list.lastElementChild.querySelector("input, select, textarea")?.focus();
  });
  fieldset.append(addButton);
  return { node: fieldset, read: () => entries.map((entry) => entry.read()) };
}

/** Render a form for schema into container; returns collect() giving the data object. */
export function buildSchemaForm(container, schema, data) {
  const root = build({ ...schema, type: "object", title: schema.title || "Data" }, data, "data", true);
  container.replaceChildren(root.node);
  return () => root.read();
}
