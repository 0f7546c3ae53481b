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

// A select with data-outcome="<selector>" shows all rows, or only failed / succeeded.
function setUpOutcome() {
  const select = document.querySelector("select[data-outcome]");
  if (!select) return;
  const apply = () => {
    document.querySelectorAll(select.dataset.outcome).forEach((row) => {
      row.classList.toggle("off", select.value !== "all" && row.dataset.success !== select.value);
    });
  };
  select.addEventListener("change", apply);
  apply();
  return apply;
}

// Episode pages: one current step; arrows or j/k move, e jumps to the first error, the
// number box jumps to a step. The address keeps the step (#step-N).
function setUpSteps() {
  if (!document.body.dataset.steps) return;
  const steps = [...document.querySelectorAll(".step")];
  if (steps.length === 0) return;
  let current = 0;
  // On load without #step-N the page stays on its outcome banner: no scroll, and no
  // #step-1 in the address either (the browser would scroll to that fragment once loaded).
  const show = (i, moved = true) => {
    current = Math.max(0, Math.min(steps.length - 1, i));
    steps.forEach((s, k) => s.classList.toggle("current", k === current));
    const box = document.getElementById("goto");
    if (box) box.value = steps[current].dataset.step;
    if (!moved) return;
    steps[current].scrollIntoView({ block: "start" });
    history.replaceState(null, "", "#" + steps[current].id);
  };
  const byNumber = (n) => steps.findIndex((s) => s.dataset.step === String(n));
  const firstError = () => steps.findIndex((s) => s.dataset.valid === "false");
  document.addEventListener("keydown", (ev) => {
    if (ev.target.matches("input, select, textarea") || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    if (ev.key === "ArrowRight" || ev.key === "j") { show(current + 1); ev.preventDefault(); }
    else if (ev.key === "ArrowLeft" || ev.key === "k") { show(current - 1); ev.preventDefault(); }
    else if (ev.key === "e") { const i = firstError(); if (i >= 0) show(i); }
  });
  const button = document.getElementById("first-error");
  if (button) button.addEventListener("click", () => show(firstError()));
  const box = document.getElementById("goto");
  if (box) box.addEventListener("change", () => { const i = byNumber(box.value); if (i >= 0) show(i); });
  const fromHash = location.hash.startsWith("#step-") ? byNumber(location.hash.slice(6)) : -1;
  show(fromHash >= 0 ? fromHash : 0, fromHash >= 0);
}

// Run pages of a run in progress: new episodes and figures arrive as server-sent events.
function setUpLive(reapply) {
  const run = document.body.dataset.liveRun;
  if (!run) return;
  const from = Number(document.body.dataset.liveFrom);
  const planned = Number(document.body.dataset.livePlanned);
  if (planned > 0 && from >= planned) return;
  const source = new EventSource(`/events?run=${encodeURIComponent(run)}&from=${from}`);
  const body = document.querySelector("#episodes tbody");
  const state = document.getElementById("live-state");
  source.addEventListener("episode", (ev) => {
    body.insertAdjacentHTML("beforeend", ev.data);
    body.lastElementChild.classList.add("new");
    if (reapply) reapply();
    document.querySelectorAll("input[data-filter]").forEach((b) => b.dispatchEvent(new Event("input")));
  });
  source.addEventListener("figures", (ev) => {
    const f = JSON.parse(ev.data);
    const set = (id, v) => { const el = document.getElementById(id); if (el) el.textContent = v; };
    set("fig-done", f.done);
    set("fig-success", f.success || "—");
    set("fig-tokens", f.tokens || "—");
    set("fig-cost", f.cost || "—");
    set("fig-errors", f.errors);
    const bar = document.getElementById("fig-bar");
    if (bar) bar.style.width = f.done_pct + "%";
  });
  source.addEventListener("playing", (ev) => {
    const list = document.getElementById("playing");
    if (list) list.outerHTML = ev.data;
    const now = document.getElementById("playing");
    if (state && now && now.dataset.status !== "running") state.textContent = now.dataset.status;
  });
  source.addEventListener("done", () => {
    if (state) state.textContent = "finished";
    source.close();
  });
  source.onerror = () => { if (state) state.textContent = "reconnecting…"; };
}

// The runs page: each row's figures follow its run (one event stream for the page).
function setUpRunsLive() {
  const table = document.getElementById("runs");
  if (!table) return;
  const source = new EventSource("/events/runs");
  source.addEventListener("run", (ev) => {
    const f = JSON.parse(ev.data);
    const row = [...table.querySelectorAll("tbody tr")].find((r) => r.dataset.run === f.id);
    if (!row) return;
    const set = (css, v) => { const el = row.querySelector(css); if (el && el.textContent !== v) { el.textContent = v; row.classList.add("new"); } };
    set(".episodes", f.episodes);
    set(".success", f.success);
    set(".cost", f.cost);
    set(".errors", f.errors ? `(${f.errors} errors)` : "");
    const status = row.querySelector(".status");
    if (status) status.className = `status status-${f.status}`;
    set(".status", f.status);
  });
}

// A word for a POSIX shell: as it is when plain, else in single quotes (the server's
// `shell_word`).
function shellWord(text) {
  return /^[A-Za-z0-9@%+=:,.\/_-]+$/.test(text) ? text : "'" + text.replace(/'/g, "'\\''") + "'";
}

// Episode pages: each step's "continue from this step" command names the model typed in
// the toolbar, and its copy button puts the command on the clipboard.
function setUpForks() {
  const model = document.getElementById("fork-model");
  const commands = [...document.querySelectorAll(".fork-cmd")];
  if (model) {
    model.addEventListener("input", () => {
      const word = shellWord(model.value.trim() || "local/smollm2");
      commands.forEach((c) => { c.textContent = `${c.dataset.base} --model ${word}`; });
    });
  }
  document.querySelectorAll(".fork .copy").forEach((button) => {
    button.addEventListener("click", async () => {
      const text = button.parentElement.querySelector(".fork-cmd").textContent;
      try {
        await navigator.clipboard.writeText(text);
      } catch (_) {
        // no clipboard API (an address that is not a secure context): copy the selection
        const range = document.createRange();
        range.selectNodeContents(button.parentElement.querySelector(".fork-cmd"));
        const selection = getSelection();
        selection.removeAllRanges();
        selection.addRange(range);
        document.execCommand("copy");
      }
      button.textContent = "copied";
      setTimeout(() => { button.textContent = "copy"; }, 1500);
    });
  });
}

document.addEventListener("DOMContentLoaded", () => {
  setUpForks();
  setUpRunsLive();
  setUpFilters();
  setUpCompare();
  const reapply = setUpOutcome();
  setUpSteps();
  setUpLive(reapply);
});
