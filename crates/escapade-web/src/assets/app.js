// escapade view: the page's small behaviours, by hand (no framework, no build step).
"use strict";

// A search box with data-filter="<selector>" hides the rows whose text lacks every word.
function setUpFilters() {
  document.querySelectorAll("input[data-filter]").forEach((box) => {
    const apply = () => {
      const words = box.value.toLowerCase().split(/\s+/).filter(Boolean);
      document.querySelectorAll(box.dataset.filter).forEach((row) => {
        const text = row.textContent.toLowerCase();
        row.classList.toggle("hidden", !words.every((w) => text.includes(w)));
      });
    };
    box.addEventListener("input", apply);
    apply();
  });
}

// The compare button is live once a run is ticked.
function setUpCompare() {
  const form = document.getElementById("compare-form");
  const button = document.getElementById("compare");
  if (!form || !button) return;
  const update = () => {
    const n = form.querySelectorAll("input[name=run]:checked").length;
    button.disabled = n === 0;
    button.textContent = n > 1 ? `Compare the ${n} selected runs` : "Report of the selected run";
  };
  form.addEventListener("change", update);
  update();
}

document.addEventListener("DOMContentLoaded", () => {
  setUpFilters();
  setUpCompare();
});
