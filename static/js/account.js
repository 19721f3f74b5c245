// The account page: ask this browser for permission to show desktop notifications (the job
// notices appear there too while the tab is in the background).
const row = document.querySelector("[data-desktop-permission]");
const button = document.querySelector("[data-desktop-enable]");
const status = document.querySelector("[data-desktop-status]");

function update() {
  const permission = Notification.permission;
  button.hidden = permission !== "default";
  status.textContent =
    permission === "granted"
      ? "Desktop notifications are allowed in this browser."
      : permission === "denied"
        ? "This browser blocks desktop notifications for this site; allow them in its site settings."
        : "";
}

if (row && "Notification" in window) {
  row.hidden = false;
  update();
  button.addEventListener("click", async () => {
    await Notification.requestPermission();
    update();
  });
}
