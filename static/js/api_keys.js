// API keys: copy a new key (or its webhook signing secret) to the clipboard; both are
// shown only once. Revoking a key asks first: it cannot be undone.
const status = document.querySelector("[data-copy-status]");
for (const button of document.querySelectorAll("[data-copy]")) {
  const input = document.querySelector(button.dataset.copy);
  input.addEventListener("focus", () => input.select());
  button.addEventListener("click", async () => {
    input.select();
    try {
      await navigator.clipboard.writeText(input.value);
      status.textContent = "Copied to the clipboard.";
    } catch {
      // No clipboard permission (plain http, an old browser): the text is selected instead.
      status.textContent = "Press Ctrl+C (⌘C) to copy the selected text.";
    }
  });
}

for (const form of document.querySelectorAll("[data-revoke-key]")) {
  form.addEventListener("submit", (event) => {
    const question =
      `Revoke the key "${form.dataset.revokeKey}"? Every request that uses it is refused ` +
      "(401) from now on, and a revoked key cannot be turned back on.";
    if (!window.confirm(question)) event.preventDefault();
  });
}
