// The memory page's one script: when the person has not picked a time zone, it offers the
// browser's own. Served from this server (the page's policy runs scripts from it alone, none
// inline); without it the page works the same, with the zone picked by hand.
(() => {
  const offer = document.getElementById("zone-offer");
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  if (!offer || !zone || zone === offer.dataset.current) return;
  const link = offer.querySelector("a");
  link.href = "/app?zone=" + encodeURIComponent(zone);
  link.textContent = offer.dataset.label.replace("{zone}", zone);
  offer.hidden = false;
})();
