// The syncpoint console's page: plain JavaScript, no libraries. Every value from the queue manager (names,
// descriptions, message bodies) reaches the page through textContent only, so markup in it is shown, never run.
"use strict";

const API = "/ibmmq/console/api";
const PAGE = 50;
const DLQ_PAGE = 200;
const state = { auth: null, tab: "queues", qOffset: 0, browseQueue: "", bOffset: 0, dOffset: 0, detail: null,
  view: "text", dlq: [], timer: null };

function $(id) { return document.getElementById(id); }

function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = String(text);
  if (cls) e.className = cls;
  return e;
}

function row(cells, numeric) {
  const tr = document.createElement("tr");
  cells.forEach((c, i) => tr.appendChild(el("td", c, numeric && numeric.includes(i) ? "num" : "")));
  return tr;
}

async function call(path, body) {
  const headers = { "Authorization": "Basic " + state.auth };
  const init = { headers, credentials: "omit" };
  if (body !== undefined) {
    init.method = "POST";
    headers["Content-Type"] = "application/json";
    headers["ibm-mq-rest-csrf-token"] = "console";
    init.body = JSON.stringify(body);
  }
  const r = await fetch(API + path, init);
  const answer = await r.json();
  if (!r.ok) {
    const err = new Error(answer.error + (answer.reasonName ? " (" + answer.reasonName + ")" : ""));
    err.status = r.status;
    throw err;
  }
  return answer;
}

function utf8Base64(text) {
  const bytes = new TextEncoder().encode(text);
  let s = "";
  bytes.forEach(b => { s += String.fromCharCode(b); });
  return btoa(s);
}

async function login(event) {
  event.preventDefault();
  state.auth = utf8Base64($("user").value + ":" + $("password").value);
  $("login-error").textContent = "";
  try {
    const qm = await call("/qmgr");
    $("login").hidden = true;
    $("tabs").hidden = false;
    $("qmgr-name").textContent = qm.name;
    show("queues");
  } catch (e) {
    state.auth = null;
    $("login-error").textContent = e.status === 401 ? "Refused: wrong user or password." : "Refused: " + e.message;
  }
}

function show(tab) {
  state.tab = tab;
  document.querySelectorAll("section.tab").forEach(s => { s.hidden = s.id !== tab; });
  document.querySelectorAll("nav button").forEach(b => b.classList.toggle("active", b.dataset.tab === tab));
  refresh();
  if (state.timer) clearInterval(state.timer);
  state.timer = setInterval(refresh, 2000);  // live: the visible page polls its own endpoint
}

async function refresh() {
  try {
    if (state.tab === "qmgr") await loadQmgr();
    else if (state.tab === "queues") await loadQueues();
    else if (state.tab === "browse" && !state.detail) await loadMessages();
    else if (state.tab === "dlq") await loadDlq();
  } catch (e) {
    if (e.status === 401) location.reload();
  }
}

async function loadQmgr() {
  const qm = await call("/qmgr");
  $("qmgr-title").textContent = qm.name;
  $("qmgr-dlq").textContent = qm.deadLetterQueue || "(none)";
  $("qmgr-qsg").textContent = qm.queueSharingGroup || "(none)";
  $("qmgr-members-part").hidden = !qm.queueSharingGroup;
  $("qmgr-members").tBodies[0].replaceChildren(...qm.members.map(m => row([m.name, m.status,
    m.started === null ? "never" : new Date(m.started * 1000).toLocaleString()])));
  $("qmgr-members-checked").textContent = new Date(qm.time * 1000).toLocaleTimeString();
  const body = $("channels").tBodies[0];
  body.replaceChildren(...qm.channels.map(c => row([c.name, c.type, c.status])));
}

async function loadQueues() {
  const name = encodeURIComponent($("queue-filter").value || "*");
  const page = await call(`/queues?name=${name}&offset=${state.qOffset}&limit=${PAGE}`);
  const rows = page.queues.map(q => {
    const tr = row([q.name, q.depth, q.oldestMessageAge, q.openInput, q.openOutput, q.uncommitted, q.description],
      [1, 2, 3, 4, 5]);
    tr.className = "clickable";
    tr.dataset.queue = q.name;
    tr.addEventListener("click", () => openQueue(q.name));
    return tr;
  });
  $("queue-table").tBodies[0].replaceChildren(...rows);
  const last = Math.min(page.offset + page.queues.length, page.total);
  $("queues-range").textContent = `${page.total ? page.offset + 1 : 0}–${last} of ${page.total}`;
  $("queues-updated").textContent = new Date().toLocaleTimeString();
}

function openQueue(name) {
  state.browseQueue = name;
  state.bOffset = 0;
  state.detail = null;
  $("message-detail").hidden = true;
  show("browse");
}

async function loadMessages() {
  const q = state.browseQueue;
  $("browse-queue").textContent = q;
  if (!q) return;
  const page = await call(`/messages?queue=${encodeURIComponent(q)}&offset=${state.bOffset}&limit=${PAGE}`);
  const rows = page.messages.map(m => {
    const tr = row([m.index + 1, m.msgId, m.format, `${m.putDate} ${m.putTime}`, m.length, m.preview], [0, 4]);
    tr.className = "clickable";
    tr.addEventListener("click", () => openMessage(m.msgId));
    return tr;
  });
  $("message-table").tBodies[0].replaceChildren(...rows);
  const depth = page.depth === null ? "?" : page.depth;
  $("browse-range").textContent = `${page.offset + 1}–${page.offset + page.messages.length} of ${depth}`;
}

function bodyBytes(b64) {
  const s = atob(b64);
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}

function hexDump(bytes) {
  const lines = [];
  for (let at = 0; at < bytes.length; at += 16) {
    const chunk = Array.from(bytes.slice(at, at + 16));
    const hex = chunk.map(b => b.toString(16).padStart(2, "0")).join(" ");
    const text = chunk.map(b => (b >= 32 && b < 127 ? String.fromCharCode(b) : ".")).join("");
    lines.push(at.toString(16).padStart(8, "0") + "  " + hex.padEnd(48) + "  " + text);
  }
  return lines.join("\n");
}

function renderBody() {
  const d = state.detail;
  if (!d) return;
  const bytes = bodyBytes(d.body);
  let shown;
  if (state.view === "hex") shown = hexDump(bytes);
  else {
    const text = new TextDecoder("utf-8", { fatal: false }).decode(bytes);
    if (state.view === "json") {
      try { shown = JSON.stringify(JSON.parse(text), null, 2); }
      catch (e) { shown = "Not JSON: " + e.message; }
    } else shown = text;
  }
  $("detail-body").textContent = shown;
}

async function openMessage(msgId) {
  state.detail = await call(`/message?queue=${encodeURIComponent(state.browseQueue)}&msgId=${msgId}`);
  const d = state.detail;
  $("detail-msgid").textContent = msgId;
  $("detail-md").tBodies[0].replaceChildren(...Object.entries(d.md).map(([k, v]) => row([k, v])));
  $("detail-props").tBodies[0].replaceChildren(...d.properties.map(p => row([p.name, p.type, p.value])));
  $("detail-props-none").hidden = d.properties.length > 0;
  const headers = $("detail-headers");
  headers.replaceChildren();
  d.headers.forEach(h => {
    headers.appendChild(el("h4", h.structure));
    const t = el("table");
    t.className = "header-" + h.structure;
    const tb = document.createElement("tbody");
    Object.entries(h.fields).forEach(([k, v]) => {
      if (v !== null && typeof v === "object") Object.entries(v).forEach(([k2, v2]) => tb.appendChild(row([k + "." + k2, v2])));
      else tb.appendChild(row([k, v]));
    });
    t.appendChild(tb);
    headers.appendChild(t);
  });
  $("message-detail").hidden = false;
  renderBody();
}

async function runMqsc(event) {
  event.preventDefault();
  const out = $("mqsc-answer");
  out.textContent = "…";
  try {
    const answer = await call("/mqsc", { command: $("mqsc-command").value });
    out.textContent = answer.lines.join("\n");
    out.className = answer.ok ? "" : "error";
  } catch (e) {
    out.textContent = e.message;
    out.className = "error";
  }
}

function drawChart(messages) {
  // arrivals over time: the messages' arrival times in up to 24 equal buckets, drawn as SVG bars
  const svg = $("dlq-chart");
  const ns = "http://www.w3.org/2000/svg";
  svg.replaceChildren();
  const ages = messages.map(m => m.age).filter(a => a !== null);
  const W = 420, H = 140, N = 24;
  if (!ages.length) {
    const t = document.createElementNS(ns, "text");
    t.setAttribute("x", 10); t.setAttribute("y", 20); t.textContent = "no messages";
    svg.appendChild(t);
    return;
  }
  const oldest = Math.max(...ages), span = Math.max(oldest, 1);
  const counts = new Array(N).fill(0);
  ages.forEach(a => { counts[Math.min(N - 1, Math.floor((span - a) / span * N))] += 1; });
  const top = Math.max(...counts);
  counts.forEach((c, i) => {
    const h = c ? Math.max(2, (H - 30) * c / top) : 0;
    const r = document.createElementNS(ns, "rect");
    r.setAttribute("class", "bar");
    r.setAttribute("x", 10 + i * (W - 20) / N); r.setAttribute("width", (W - 20) / N - 2);
    r.setAttribute("y", H - 18 - h); r.setAttribute("height", h);
    const tip = document.createElementNS(ns, "title");
    tip.textContent = `${c} message(s)`;
    r.appendChild(tip);
    svg.appendChild(r);
  });
  [["" + oldest + " s ago", 10, "start"], ["now", W - 10, "end"], [`max ${top}`, 10, "start"]].forEach(([s, x, a], i) => {
    const t = document.createElementNS(ns, "text");
    t.setAttribute("x", x); t.setAttribute("y", i === 2 ? 10 : H - 4); t.setAttribute("text-anchor", a);
    t.textContent = s;
    svg.appendChild(t);
  });
}

function counts(list, id) {
  $(id).replaceChildren(...Object.entries(list).map(([k, v]) => el("li", `${k}: ${v}`)));
}

async function loadDlq() {
  const page = await call(`/dlq?offset=${state.dOffset}&limit=${DLQ_PAGE}`);
  const chosen = new Set(selected().map(m => m.msgId));
  state.dlq = page.messages;
  $("dlq-name").textContent = page.queue;
  $("dlq-range").textContent = `${page.messages.length ? page.offset + 1 : 0}–${page.offset + page.messages.length} of ${page.depth}`;
  counts(page.byReason, "dlq-reasons");
  counts(page.byQueue, "dlq-queues");
  drawChart(page.messages);
  $("dlq-table").tBodies[0].replaceChildren(...page.messages.map(m => {
    const tr = row(["", m.msgId, m.reason === null ? m.reasonName : `${m.reason} ${m.reasonName}`, m.destQ, m.destQMgr,
      m.age, m.length], [5, 6]);
    const box = document.createElement("input");
    box.type = "checkbox";
    box.className = "pick";
    box.dataset.msgid = m.msgId;
    box.checked = chosen.has(m.msgId);
    tr.cells[0].appendChild(box);
    return tr;
  }));
}

function selected() {
  const ids = new Set(Array.from(document.querySelectorAll("#dlq-table input.pick:checked")).map(b => b.dataset.msgid));
  return state.dlq.filter(m => ids.has(m.msgId));
}

async function dlqAction(action) {
  const chosen = selected();
  const result = $("dlq-result");
  if (!chosen.length) { result.textContent = "Select messages first."; return; }
  try {
    const answer = await call("/dlq/action", { action, toQueue: $("dlq-move-to").value, msgIds: chosen.map(m => m.msgId) });
    const done = answer.outcomes.filter(o => o.done).length;
    const failed = answer.outcomes.filter(o => !o.done);
    result.replaceChildren(el("span", `${action}: ${done} done`, "ok"));
    failed.forEach(o => result.appendChild(el("div",
      `${o.msgId} stays on the dead-letter queue: ${o.reason} ${o.reasonName}${o.destination ? " (" + o.destination + ")" : ""}`,
      "error")));
  } catch (e) {
    result.replaceChildren(el("span", e.message, "error"));
  }
  await loadDlq();
}

async function dlqRules() {
  const out = $("dlq-rules-text");
  try {
    const answer = await call("/dlq/rules", { queue: $("dlq-name").textContent, action: $("dlq-rules-action").value,
      toQueue: $("dlq-move-to").value, selected: selected() });
    out.textContent = answer.rules;
  } catch (e) {
    out.textContent = e.message;
  }
  out.hidden = false;
}

document.addEventListener("DOMContentLoaded", () => {
  $("login-form").addEventListener("submit", login);
  document.querySelectorAll("nav button").forEach(b => b.addEventListener("click", () => show(b.dataset.tab)));
  $("queue-filter").addEventListener("change", () => { state.qOffset = 0; loadQueues(); });
  $("queues-prev").addEventListener("click", () => { state.qOffset = Math.max(0, state.qOffset - PAGE); loadQueues(); });
  $("queues-next").addEventListener("click", () => { state.qOffset += PAGE; loadQueues(); });
  $("browse-prev").addEventListener("click", () => { state.bOffset = Math.max(0, state.bOffset - PAGE); state.detail = null; loadMessages(); });
  $("browse-next").addEventListener("click", () => { state.bOffset += PAGE; state.detail = null; loadMessages(); });
  document.querySelectorAll("[data-view]").forEach(b => b.addEventListener("click", () => { state.view = b.dataset.view; renderBody(); }));
  $("mqsc-form").addEventListener("submit", runMqsc);
  $("dlq-retry").addEventListener("click", () => dlqAction("retry"));
  $("dlq-discard").addEventListener("click", () => dlqAction("discard"));
  $("dlq-move").addEventListener("click", () => dlqAction("move"));
  $("dlq-rules").addEventListener("click", dlqRules);
  $("dlq-prev").addEventListener("click", () => { state.dOffset = Math.max(0, state.dOffset - DLQ_PAGE); loadDlq(); });
  $("dlq-next").addEventListener("click", () => { state.dOffset += DLQ_PAGE; loadDlq(); });
  $("dlq-all").addEventListener("change", e => {
    document.querySelectorAll("#dlq-table input.pick").forEach(b => { b.checked = e.target.checked; });
  });
});
