// New run: show the chosen template's columns and its sample CSV link, hide the others'.
const select = document.getElementById("id_template");

function show() {
  for (const block of document.querySelectorAll("[data-columns-for]")) {
    block.hidden = block.dataset.columnsFor !== select.value;
  }
}

if (select) {
  select.addEventListener("change", show);
  show();
}
