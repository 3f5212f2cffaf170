"use strict";
// The review page: one question at a time, one group at a time, every change saved by the server first.
const token = document.body.dataset.token;
let state = null, question = 0, current = 0, showWho = false, splitting = false, entryMode = null, keeping = null;

const $ = (id) => document.getElementById(id);
// autograder/reporting/escape.py's HTML rule: control, bidirectional and other invisible characters shown as
// escapes (\x1b, \u202e), then the markup characters as entities: an answer is shown as text, never obeyed
const SHORT = {"\r": "\\r"};
const shown = (c) => {
  let code = c.codePointAt(0);
  if (code >= 0xdc80 && code <= 0xdcff) code -= 0xdc00;  // a byte of a file name in no valid encoding
  return SHORT[c] || (code < 0x100 ? "\\x" + code.toString(16).padStart(2, "0") :
    code < 0x10000 ? "\\u" + code.toString(16).padStart(4, "0") : "\\U" + code.toString(16).padStart(8, "0"));
};
const esc = (text) => String(text).replace(/\r\n/g, "\n")
  .replace(/(?![\n\t\u200c\u200d])[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/gu, shown)
  .replace(/[&<>"']/g, (c) => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#x27;"}[c]));
const fmt = (n) => (n === null || n === undefined) ? "" : String(Math.round(n * 100) / 100);

function ordered(q) {  // pending groups, largest first; decided ones after them
  const pending = q.groups.filter((g) => g.score === null).sort((a, b) => b.students.length - a.students.length);
  return pending.concat(q.groups.filter((g) => g.score !== null));
}

async function call(path, body) {
  const response = await fetch(`${path}?token=${encodeURIComponent(token)}`, body === undefined ? {} :
    {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)});
  const data = await response.json();
  if (!response.ok) {
    say(data.error || `error ${response.status}`, true);
    if (data.questions) { state = data; render(); }
    return null;
  }
  return data;
}

function saved(text) {  // the server has written review.yaml: count it (tests wait on this, people read it)
  document.body.dataset.saved = String(Number(document.body.dataset.saved || 0) + 1);
  say(text);
}

function say(text, error = false) { const s = $("status"); s.textContent = text; s.className = error ? "error" : ""; }

function render() {
  const qs = state.questions;
  document.body.dataset.pending = state.pending;
  $("progress").textContent = qs.length ? `question ${question + 1} of ${qs.length} · ${state.pending} group(s) to score` : "";
  $("done").hidden = state.pending !== 0;
  if (!qs.length) { $("question").innerHTML = "<p>No answers wait for review.</p>"; $("groups").innerHTML = ""; return; }
  const q = qs[question], groups = ordered(q);
  current = Math.min(current, groups.length - 1);
  $("question").innerHTML = `<p class="meta">${esc(q.quiz)} · ${esc(q.id)} · ${fmt(q.points)} point(s)</p>
    <p class="prompt">${esc(q.prompt)}</p><p>Key: <span class="key">${esc(q.expected)}</span></p>`;
  document.body.classList.toggle("splitting", splitting);
  $("groups").innerHTML = groups.map((g, i) => {
    const size = g.students.length;
    const answers = g.answers.map((a) => `<li>${esc(a.text)}${showWho && a.students.length ?
      ` <span class="who">(${a.students.map(esc).join(", ")})</span>` : ""}</li>`).join("");
    const hinted = g.hint !== null && g.hint !== undefined;
    const suggestion = g.suggested !== null && g.suggested !== undefined ?
      `<p class="suggested">suggested: ${fmt(g.suggested)}${g.why ? ` (${esc(g.why)})` : ""} · a or Enter takes it</p>` :
      hinted || g.why ? `<p class="hint">read and matched${hinted ? ` (counts ${fmt(g.hint)})` : ""}: ${esc(g.why)}` +
      ` · a hint, not a score: give yours with a digit</p>` : "";
    return `<div class="group${i === current ? " current" : ""}${g.score !== null ? " decided" : ""}"
      data-index="${g.index}" data-score="${g.score === null ? "" : g.score}">
      <span class="score">${g.score === null ? "" : `${fmt(g.score)} / ${fmt(q.points)}`}</span>
      <span class="size">${size} student(s)</span>, ${g.answers.length} wording(s)
      <ol>${answers}</ol>${suggestion}
      ${g.feedback ? `<p class="muted">feedback: ${esc(g.feedback)}</p>` : ""}
      ${g.score !== null ? `<button type="button" class="keep" data-index="${g.index}">keep for later terms: ${esc(keepLabel(g.score, q.points))}</button>` : ""}
      ${showWho && !g.answers.some((a) => a.students.length) ? `<p class="who">${g.students.map(esc).join(", ")}</p>` : ""}</div>`;
  }).join("");
  const here = document.querySelector(".group.current");
  if (here && here.scrollIntoView) here.scrollIntoView({block: "nearest"});
}

function keepLabel(score, points) {  // autograder/quiz/review_page/keep.py's label
  return score >= points ? "accept this reading" : `misconception at ${fmt(score)} of ${fmt(points)} point(s)`;
}

function showKeep(keep) {  // what keeping the group adds to the quiz file, and what is refused and why
  if (!keeping) return;
  keeping.digest = keep.digest;
  $("keep").hidden = false;
  $("keep-title").textContent = keep.label;
  $("keep-file").textContent = keep.file;
  $("keep-lines").innerHTML = keep.additions.map((a) => `<li class="added">adds ${esc(a)}</li>`).join("") +
    keep.refused.map((r) => `<li class="refused">not added: ${esc(r)}</li>`).join("");
  $("keep-diff").textContent = keep.diff || "(nothing would change in the quiz file)";
  $("keep-write").disabled = !keep.diff || Boolean(keep.written);
  $("keep-note").textContent = keep.written ? `written into ${keep.written.join(", ")}: grade again with the same ` +
    `output folder to apply it to every wording that now reads the same` +
    (keep.now_read ? ` (${keep.now_read} waiting wording(s) of this review among them)` : "") :
    keep.now_read ? `with it, ${keep.now_read} waiting wording(s) of this review would be graded by the kit` : "";
}

async function keepCall(path, body) {
  const response = await fetch(`${path}?token=${encodeURIComponent(token)}`,
    {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)});
  const data = await response.json();
  if (!response.ok) say(data.error || `error ${response.status}`, true);
  if (data.questions) { state = data; closeKeep(); render(); }  // the group moved: redraw from the file
  if (data.keep) showKeep(data.keep);
  return response.ok ? data : null;
}

async function keep(index) {
  const q = state.questions[question], at = ordered(q).findIndex((g) => g.index === index);
  if (at < 0) return;
  current = at;
  render();
  keeping = {where: where(group())};
  const data = await keepCall("/api/keep", keeping.where);
  if (!data) { if ($("keep").hidden) keeping = null; return; }
  say(data.keep.diff ? "review the addition, then write it" : "nothing to add: see why");
}

async function keepWrite() {
  if (!keeping) return;
  const data = await keepCall("/api/keep/write", {...keeping.where, digest: keeping.digest});
  if (!data) return;
  document.body.dataset.kept = String(Number(document.body.dataset.kept || 0) + 1);
  say(`written into ${data.keep.written.join(", ")}`);
}

function closeKeep() { keeping = null; $("keep").hidden = true; }

$("groups").addEventListener("click", (event) => {
  const button = event.target.closest("button.keep");
  if (button) queue = queue.then(() => keep(Number(button.dataset.index))).catch((error) => say(String(error), true));
});
$("keep-write").addEventListener("click", () => { queue = queue.then(keepWrite).catch((error) => say(String(error), true)); });
$("keep-cancel").addEventListener("click", closeKeep);

function group() { const q = state.questions[question]; return q ? ordered(q)[current] : null; }

function where(g) {
  const q = state.questions[question];
  return {quiz: q.quiz, question: q.id, group: g.index, first: g.answers[0].text};
}

function nextPending() {  // the next group without a score: this question first, then the following ones
  const qs = state.questions;
  for (let step = 0; step < qs.length; step++) {
    const qi = (question + step) % qs.length, groups = ordered(qs[qi]);
    const at = groups.findIndex((g) => g.score === null);
    if (at >= 0) { question = qi; current = at; return; }
  }
}

async function score(value, feedback) {
  const g = group();
  if (!g) return;
  const points = state.questions[question].points;
  if (value !== null && (isNaN(value) || value < 0 || value > points)) { say(`a score is 0 to ${fmt(points)}`, true); return; }
  const body = {...where(g), score: value};
  if (feedback !== undefined) body.feedback = feedback;
  const data = await call("/api/decide", body);
  if (!data) return;
  state = data;
  saved(`saved to ${state.file}`);
  if (value !== null && feedback === undefined) nextPending();
  render();
}

async function split(answer) {
  const g = group();
  splitting = false;
  if (!g || answer >= g.answers.length || g.answers.length < 2) { render(); return; }
  const data = await call("/api/split", {...where(g), answer});
  if (!data) return;
  state = data;
  saved(`split; saved to ${state.file}`);
  render();
}

function ask(mode, label, value) {
  entryMode = mode;
  $("entry").hidden = false;
  $("entry-label").textContent = label;
  $("entry-input").value = value || "";
  $("entry-input").focus();
}

$("entry").addEventListener("submit", (event) => {
  event.preventDefault();
  const text = $("entry-input").value, mode = entryMode;
  $("entry").hidden = true; entryMode = null;
  if (mode === "score") score(parseFloat(text.replace(",", ".")));
  else if (mode === "feedback") { const g = group(); score(g.score, text); }
});

const KEYS = /^([0-9fnhaecujkwsl\[\]]|half[0-9]|Enter|Escape|Arrow(Up|Down|Left|Right))$/;
let queue = Promise.resolve();  // one key at a time: each acts on the state the previous one left

document.addEventListener("keydown", (event) => {
  if (entryMode) {
    if (event.key === "Escape") { $("entry").hidden = true; entryMode = null; }
    return;
  }
  if (keeping) {  // the keep panel is open: keys score nothing until it is closed
    if (event.key === "Escape") closeKeep();
    return;
  }
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  // Shift+digit is that number and a half, whatever the keyboard layout prints for it
  const key = event.shiftKey && /^Digit[0-9]$/.test(event.code) ? `half${event.code.slice(5)}` : event.key;
  if (!KEYS.test(key)) return;
  event.preventDefault();
  queue = queue.then(() => act(key)).catch((error) => say(String(error), true));
});

async function act(key) {
  if (!state || !state.questions.length || entryMode || keeping) return;
  const q = state.questions[question], g = group();
  if (splitting && /^[1-9]$/.test(key)) await split(Number(key) - 1);
  else if (/^[0-9]$/.test(key)) await score(Number(key));
  else if (/^half[0-9]$/.test(key)) await score(Number(key.slice(4)) + 0.5);
  else if (key === "f") await score(q.points);
  else if (key === "n") await score(0);
  else if (key === "h") await score(q.points / 2);
  else if ((key === "a" || key === "Enter") && g) {
    if (g.suggested !== null && g.suggested !== undefined) await score(g.suggested);
    else say(`no suggested score for this group: type one (0 to ${fmt(q.points)}, f full, h half, n none, e exact)`);
  }
  else if (key === "e") ask("score", `score (0 to ${fmt(q.points)}):`);
  else if (key === "c" && g) ask("feedback", "feedback:", g.feedback);
  else if (key === "u") await score(null);
  else if (key === "l" && g && g.score !== null) await keep(g.index);
  else if (key === "j" || key === "ArrowDown") { current = Math.min(current + 1, q.groups.length - 1); render(); }
  else if (key === "k" || key === "ArrowUp") { current = Math.max(current - 1, 0); render(); }
  else if (key === "]" || key === "ArrowRight") { question = Math.min(question + 1, state.questions.length - 1); current = 0; render(); }
  else if (key === "[" || key === "ArrowLeft") { question = Math.max(question - 1, 0); current = 0; render(); }
  else if (key === "w") { showWho = !showWho; render(); }
  else if (key === "s") { splitting = !splitting; say(splitting ? "split: press the number of the answer to move out (s to cancel)" : ""); render(); }
  else if (key === "Escape") { splitting = false; render(); }
}

call("/api/state").then((data) => { if (data) { state = data; nextPending(); render(); } });
