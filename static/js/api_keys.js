// API keys: copy a new key to the clipboard (it is shown only once).
const button = document.querySelector("[data-copy]");
if (button) {
  const input = document.querySelector(button.dataset.copy);
  const status = document.querySelector("[data-copy-status]");
  input.addEventListener("focus", () => input.select());
  button.addEventListener("click", async () => {
    input.select();
    try {
      await navigator.clipboard.writeText(input.value);
      status.textContent = "Copied to the clipboard.";
    } catch {
      // No clipboard permission (plain http, an old browser): the key is selected instead.
      status.textContent = "Press Ctrl+C (⌘C) to copy the selected key.";
    }
  });
}
