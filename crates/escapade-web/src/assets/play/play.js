// escapade play --web: the play page's small behaviours, by hand (no framework, no build).
"use strict";

// While it is not this seat's turn, ask the server once a second whether anything changed
// and reload when it did (a dropped connection just retries).
function follow() {
  const body = document.body;
  const url = body.dataset.playState;
  if (!url) return;
  const status = body.dataset.playStatus;
  const version = body.dataset.playVersion;
  const poll = async () => {
    try {
      const r = await fetch(url, { cache: "no-store" });
      if (r.ok) {
        const s = await r.json();
        if (String(s.version) !== version) {
          location.reload();
          return;
        }
      }
    } catch (e) {
      // the server is away for a moment: try again
    }
    setTimeout(poll, status === "turn" ? 3000 : 700);
  };
  if (status !== "over") setTimeout(poll, 700);
}

// Ctrl-Enter sends the text; craft's keys press their buttons when no field has focus.
function keys() {
  const text = document.getElementById("text");
  if (text) {
    text.focus();
    text.addEventListener("keydown", (e) => {
      if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
        e.preventDefault();
        text.form.requestSubmit();
      }
    });
  }
  const craft = document.getElementById("craft-form");
  if (!craft) return;
  if (text) text.blur();
  document.addEventListener("keydown", (e) => {
    const t = e.target;
    if (t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA")) return;
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const button = craft.querySelector(`button[data-key="${CSS.escape(e.key.toLowerCase())}"]`);
    if (button) {
      e.preventDefault();
      craft.requestSubmit(button);
    }
  });
}

document.addEventListener("DOMContentLoaded", () => {
  // the turn in front of the person, below a long history
  const turn = document.getElementById("turn");
  if (turn && document.getElementById("history")) turn.scrollIntoView();
  follow();
  keys();
});
