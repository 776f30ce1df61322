/* tableref: the table page's small plain JavaScript. No framework, no build step.
   Live updates arrive by Server-Sent Events (/api/events); each event makes the
   page re-read /api/state (or /api/ledger), at most a few times a second. */
"use strict";

const STR = JSON.parse(document.getElementById("i18n").textContent || "{}");
const T = (k) => (k in STR ? STR[k] : k);
// a string with its {placeholders} filled in
const TF = (k, params) => T(k).replace(/\{(\w+)\}/g, (m, name) => (name in params ? String(params[name]) : m));
// a word the program writes in the journal ("referee", "camera misread") in the page's language; a host's own words as they are
const journalWord = (v) => { const k = "journal_" + String(v).replace(/ /g, "_"); return k in STR ? STR[k] : v; };
const TK = (prefix, v) => (prefix + v in STR ? STR[prefix + v] : String(v).replace(/_/g, " "));
const PAGE = document.body.dataset.page;
const HOST = document.body.dataset.host === "yes";
const SUIT = { C: "♣", D: "♦", H: "♥", S: "♠" };
const $ = (sel, root) => (root || document).querySelector(sel);

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else if (k === "dataset") Object.assign(node.dataset, v);
    else node.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    node.append(c.nodeType ? c : document.createTextNode(String(c)));
  }
  return node;
}

function csrf() { return document.querySelector('meta[name="csrf-token"]').content; }

async function post(path, body) {
  let resp;
  try {
    resp = await fetch(path, {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf() },
      body: JSON.stringify(body || {}),
    });
  } catch (e) {
    return { ok: false, status: 0, data: { error: T("offline") } };
  }
  let data = {};
  try { data = await resp.json(); } catch (e) { data = { error: resp.statusText }; }
  return { ok: resp.ok, status: resp.status, data };
}

async function getJSON(path) {
  const resp = await fetch(path, { credentials: "same-origin", cache: "no-store" });
  if (!resp.ok) throw new Error(path + ": " + resp.status);
  return resp.json();
}

function toast(text, bad) {
  const t = $("#toast");
  t.textContent = text;
  t.className = bad ? "bad" : "";
  t.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { t.hidden = true; }, 4000);
}

// Ask the host before money is settled: a dialog with what will be recorded; resolves true or false.
function ask(title, lines, okText) {
  return new Promise((resolve) => {
    const d = el("dialog", { id: "ask-dialog" },
      el("form", { method: "dialog" }, el("h2", {}, title),
        el("ul", { class: "ask-lines" }, lines.map((l) => el("li", {}, l))),
        el("div", { class: "buttons" },
          el("button", { type: "button", id: "ask-cancel", onclick: () => d.close("no") }, T("cancel")),
          el("button", { type: "submit", class: "primary", id: "ask-ok", value: "yes" }, okText || T("record")))));
    d.addEventListener("close", () => { resolve(d.returnValue === "yes"); d.remove(); });
    document.body.append(d);
    d.showModal();
  });
}

// One scoring item of a hand: a payment says who pays whom ("Mico Ana → Beto 1", "pays Beto → Ana 7"),
// what a player takes is signed ("pot Beto +4", "win Ana +30").
function itemText(it) {
  const has = it.points !== null && it.points !== undefined;
  const amount = has ? String(it.points).replace(/^[-+]/, "") : "";
  if (has && it.player && (it.to || it.from)) {
    const [payer, payee] = it.to ? [it.player, it.to] : [it.from, it.player];
    return TK("item_", it.item) + " " + payer + " → " + payee + " " + amount;
  }
  return TK("item_", it.item) + (it.player ? " " + it.player : "") + (has ? " " + signed(it.points) : "");
}

// What a hand's preview will record, one line each: the verdict, every item, the pot.
function previewLines(p) {
  const lines = [p.say || p.text || ((p.winner || T("no_winner")) + ": " + Object.entries(p.net || {}).map(([n, v]) => n + " " + signed(v)).join(", "))];
  for (const it of p.items || []) lines.push(itemText(it));
  if (p.maal) lines.push(T("maal") + ": " + Object.entries(p.maal).map(([n, v]) => n + " " + v).join(", "));
  if (p.pot_carried_out) lines.push(T("no_winner") + " " + T("pot") + " " + p.pot_carried_out);
  return lines;
}

// Ask with the preview, then record: POST body without, then with, "confirm".
async function confirmHand(body) {
  const r = await post("/api/hand/confirm", body);
  if (!r.ok) return r;
  const p = r.data.preview || {};
  if (p.already_recorded) { toast(T("already_recorded")); return r; }
  if (!(await ask(T("ask_record"), previewLines(p)))) return { ok: false, cancelled: true, data: {} };
  return post("/api/hand/confirm", Object.assign({}, body, { confirm: true }));
}

// An API error in the page's language: the server's "say" (it translates every keyed error), else its English.
function errorText(data) { return (data && (data.say || data.error)) || T("error"); }

function showError(node, data) {
  if (!node) return;
  node.textContent = errorText(data);
  node.hidden = false;
}

// a card's label with its suit sign ("10H" -> "10♥")
function cardLabel(text) {
  const suit = text.slice(-1);
  return text.slice(0, -1) + (SUIT[suit] || suit);
}

// the host's correction of the card in the correction dialog (set where the live page has one)
let sendCorrection = async () => {};

// a card chip's classes: red for hearts and diamonds, and ``extra``
function cardClass(text, extra) {
  const suit = text.slice(-1);
  return "card" + (suit === "H" || suit === "D" ? " red" : "") + (extra ? " " + extra : "");
}

function cardNode(card, trackId, extra, candidates) {
  const text = String(card || "?");
  const label = cardLabel(text);
  const attrs = { class: cardClass(text, extra), title: text, dataset: { card: text } };
  if (trackId !== undefined && trackId !== null) attrs.dataset.trackId = String(trackId);
  if (HOST && trackId !== undefined && trackId !== null) {
    attrs.role = "button"; attrs.tabindex = "0";
    attrs.onclick = () => openCorrection(trackId, text, candidates);
  }
  return el("span", attrs, label);
}

// Debounced refresh: many events in a burst cause one fetch.
function debounced(fn, ms) {
  let timer = null, running = false, again = false;
  const run = async () => {
    timer = null;
    if (running) { again = true; return; }
    running = true;
    try { await fn(); } catch (e) { console.warn(e); }
    running = false;
    if (again) { again = false; schedule(); }
  };
  const schedule = () => { if (!timer) timer = setTimeout(run, ms); };
  return schedule;
}

function connectEvents(onEvent) {
  if (!window.EventSource) return;
  const es = new EventSource("/api/events");
  es.onmessage = (m) => {
    let ev = null;
    try { ev = JSON.parse(m.data); } catch (e) { return; }
    onEvent(ev);
  };
  es.onerror = () => { /* the browser reconnects by itself (retry: 2000) */ };
  return es;
}

// ------------------------------------------------------------------ dialogs and login
document.querySelectorAll("dialog [data-close]").forEach((b) =>
  b.addEventListener("click", () => b.closest("dialog").close()));

const loginOpen = $("#login-open");
if (loginOpen) loginOpen.addEventListener("click", () => { $("#login-dialog").showModal(); $("#login-pin").focus(); });
const loginForm = $("#login-form");
if (loginForm) loginForm.addEventListener("submit", async (e) => {
  e.preventDefault();
  const r = await post("/api/login", { pin: $("#login-pin").value, name: $("#login-name").value || "host" });
  if (r.ok) { location.reload(); return; }
  // by status and field, in the player's language: a wrong PIN, too many tries (the server's English in the title)
  const key = r.status === 429 ? "too_many_tries" : (r.status === 403 && r.data && r.data.field === "pin") ? "wrong_pin" : null;
  showError($("#login-error"), key ? { error: T(key) } : r.data);
  $("#login-error").title = (r.data && r.data.error) || "";
});
const logout = $("#logout");
if (logout) logout.addEventListener("click", async () => { await post("/api/logout", {}); location.reload(); });

// ------------------------------------------------------------------ live table
const MARK = { valid: "✓", invalid: "✗", order: "⇅" };

function meldNode(m) {
  let cls = "meld", mark = MARK.valid, label = T("valid");
  if (m.valid === false) { cls += " invalid"; mark = MARK.invalid; label = T("invalid"); }
  else if (m.in_order === false) { cls += " out-of-order"; mark = MARK.order; label = T("out_of_order"); }
  else if (m.checked === "at_count") { cls += " at-count"; mark = "·"; label = T("checked_at_count"); }
  else if (m.valid === null || m.valid === undefined) { cls += " pending"; mark = "…"; label = T("pending"); }
  else cls += " valid";
  const ids = m.track_ids || [];
  return el("div", { class: cls, dataset: { valid: String(m.valid), inOrder: String(m.in_order) } },
    el("span", { class: "mark", title: label, "aria-label": label }, mark),
    el("span", { class: "cards" }, (m.cards || []).map((c, i) => cardNode(c, ids[i]))),
    m.kind ? el("span", { class: "kind" }, TK("kind_", m.kind)) : null,
    m.reason ? el("div", { class: "reason", title: m.reason }, m.reason_say || m.reason) : null);
}

function seatNode(s, winner) {
  const melds = s.melds || [];
  const count = s.table_cards !== undefined ? s.table_cards
    : melds.reduce((n, m) => n + (m.cards || []).length, 0);
  const won = winner && s.player === winner;
  return el("article", { class: "seat" + (won ? " winner" : ""), dataset: { seat: String(s.seat) } },
    el("header", {}, el("b", { class: "player" }, s.player || (T("seat") + " " + (s.seat + 1))),
      el("span", { class: "count", title: T("table_cards") }, String(count) + " " + T("cards_short"))),
    melds.length ? melds.map(meldNode) : el("p", { class: "hint" }, T("no_melds")),
    (s.loose && s.loose.length) ? el("div", { class: "loose" }, el("span", { class: "hint" }, T("loose") + ": "),
      s.loose.map((c, i) => typeof c === "string" ? cardNode(c, (s.loose_ids || [])[i]) : cardNode(c.card, c.track_id))) : null,
    (s.verdicts_say || s.verdicts || []).length ? el("ul", { class: "verdicts" },
      (s.verdicts_say || s.verdicts).map((v) => el("li", {}, v))) : null);
}

// where a card lies, in words: its seat's player, or the centre
function zoneName(table, zone) {
  const m = /^seat(\d+)$/.exec(zone || "");
  if (m) {
    const seat = (table.seats || []).find((x) => String(x.seat) === m[1]);
    return (seat && seat.player) || T("seat") + " " + (Number(m[1]) + 1);
  }
  return zone === "centre" ? T("centre") : "–";
}

// The cards to check: those the camera has not read yet (their looks disagree: where each lies and
// what it might be) and the labels read more often than the packs hold them (every copy set aside);
// none of them is counted. The host taps one to say what it is (an unread card's candidates are
// offered in the correction dialog).
function renderToCheck(table) {
  const unread = table.unread || [], aside = table.set_aside || [];
  const panel = $("#check-panel");
  if (!panel) return;
  panel.hidden = !unread.length && !aside.length;
  const items = unread.map((u) => {
    const cands = u.candidates || [];
    return el("li", { class: "unread", dataset: { trackId: String(u.track_id) } },
      cardNode("?", u.track_id, "unread", cands),
      el("span", {}, TF("unread_where", { where: zoneName(table, u.zone), cards: cands.length ? cands.map(cardLabel).join(" / ") : "?" })),
      el("span", { class: "hint" }, "#" + u.track_id));
  });
  for (const a of aside) {
    const copies = a.copies || [];
    items.push(el("li", { class: "set-aside", dataset: { card: a.card } },
      ...copies.map((c) => cardNode(a.card, c.track_id, "set-aside")),
      el("span", {}, TF("set_aside_where", { card: cardLabel(a.card), n: copies.length, packs: a.packs,
        where: copies.map((c) => zoneName(table, c.zone) + " #" + c.track_id).join(", ") }))));
  }
  $("#check").replaceChildren(...items);
}

function renderLive(state) {
  const table = state.table || {};
  const cam = table.camera || {};
  const badge = $("#cam-status");
  badge.textContent = TK("cam_", (cam.status || "unknown"));
  badge.className = "badge cam-" + (cam.status || "unknown");
  const detail = $("#cam-detail");
  detail.textContent = [cam.say || cam.message, cam.fps ? cam.fps.toFixed(1) + " fps" : "",
    cam.dropped && cam.status !== "ended" ? TF("camera_dropped", { n: cam.dropped }) : ""]
    .filter(Boolean).join(" · ");
  detail.title = cam.message || "";  // the technical detail, for whoever sets the camera up
  $("#hand-no").textContent = table.hand_no !== undefined ? table.hand_no : "–";
  const seats = $("#seats");
  seats.replaceChildren(...(table.seats || []).map((s) => seatNode(s, table.winner)));
  const centre = table.centre || {};
  $("#centre").replaceChildren(...(centre.cards || []).map((c, i) => cardNode(c, (centre.track_ids || [])[i])));
  renderToCheck(table);
  const banner = $("#banner");
  if (table.winner) {
    const net = (table.result && table.result.net) || {};
    const parts = Object.entries(net).map(([p, v]) => p + " " + (v > 0 ? "+" : "") + v);
    banner.replaceChildren(el("b", {}, T("winner") + ": " + table.winner), parts.length ? el("span", {}, " · " + parts.join(", ")) : null);
    banner.hidden = false;
  } else if (table.result) {
    banner.replaceChildren(el("b", {}, T("no_winner")), table.pot ? el("span", {}, " · " + T("pot") + " " + table.pot) : null);
    banner.hidden = false;
  } else banner.hidden = true;
  const next = $("#next-hand");
  if (next) {
    next.hidden = !table.waiting_for_clear_table;
    next.textContent = TF("next_hand", { seconds: table.clear_table_seconds === undefined ? "" : table.clear_table_seconds });
  }
  renderRunBalances(table.players || [], state.ledger || {});
  speakNew(table.events || []);
  const lerr = $("#ledger-error");
  // in the player's language; the server's English detail in the title
  if (state.ledger && state.ledger.error) { lerr.textContent = T("ev_error"); lerr.title = state.ledger.error; lerr.hidden = false; }
  else lerr.hidden = true;
  if (table.error) toast(T("error"), true);
  const log = $("#event-log");
  // A camera that stays "ok" with a new message is not news: show status changes only.
  let lastCam = null;
  const events = (table.events || []).filter((e) => {
    if (e.type !== "camera_status") return true;
    const keep = e.status !== lastCam;
    lastCam = e.status;
    return keep;
  }).slice(-30).reverse();
  // the name once: a text that starts with the player's name ("Beto laid...") has that name in bold;
  // the picture each verdict was decided on (evidence), matched by hand, kind, time and seat
  const pics = {};
  for (const p of state.evidence || []) pics[[p.hand_no, p.kind, p.t, p.seat].join("|")] = p.url;
  log.replaceChildren(...events.map((e) => {
    const text = e.say || e.text || e.type;
    const pic = pics[[e.hand_no, e.type, e.t, e.seat === undefined ? null : e.seat].join("|")];
    const link = pic ? el("a", { class: "evidence-link", href: pic, target: "_blank", title: T("evidence") }, "📷") : null;
    if (!e.player) return el("li", { class: "ev ev-" + e.type, title: e.text || "" }, text, link);
    const named = text.startsWith(e.player);
    return el("li", { class: "ev ev-" + e.type, title: e.text || "" }, el("b", {}, e.player),
      named ? text.slice(e.player.length) : " " + text, link);
  }));
}

// Each player's running balance for the session: points, and the money exactly as the server writes it.
function renderRunBalances(players, ledger) {
  const points = ledger.balances || {}, money = ledger.money || {};
  const names = players.concat(Object.keys(points).filter((p) => !players.includes(p)));
  $("#run-balances").replaceChildren(...names.map((p) => el("div", { class: "run-balance " + sign(money[p] || points[p]), dataset: { player: p } },
    el("span", { class: "name" }, p), el("b", { class: "points" }, signed(points[p] || 0)),
    el("span", { class: "money" }, moneyText(money[p])))));
}

// ------------------------------------------------------------------ the table speaks
// Opt-in (remembered on this device): each new verdict and each hand's end, said in the page's language
// by the browser's own speech; silent where the device has no voice for the language.
const SPOKEN = new Set(["meld_invalid", "out_of_order", "illegal_move", "autowin", "hand_end"]);
const speech = { on: false, heard: null, voice: null };

function eventKey(e) { return [e.type, e.t, e.hand_no, e.seat, e.player, e.text].join("|"); }

function pickVoice() {
  const synth = window.speechSynthesis;
  const lang = (document.documentElement.lang || "en").toLowerCase();
  const voices = synth ? synth.getVoices() : [];
  speech.voice = voices.find((v) => (v.lang || "").toLowerCase().replace("_", "-").split("-")[0] === lang) || null;
  const none = $("#speak-no-voice");
  if (none) none.hidden = !(speech.on && !speech.voice);
}

function initSpeech() {
  const box = $("#speak");
  if (!box) return;
  let stored = null;
  try { stored = localStorage.getItem("tableref.speak"); } catch (e) { /* storage off: not remembered */ }
  speech.on = box.checked = stored === "on";
  const synth = window.speechSynthesis;
  if (synth && synth.addEventListener) synth.addEventListener("voiceschanged", pickVoice);
  box.addEventListener("change", () => {
    speech.on = box.checked;
    try { localStorage.setItem("tableref.speak", speech.on ? "on" : "off"); } catch (e) { /* not remembered */ }
    pickVoice();
  });
  pickVoice();
}

function speakNew(events) {
  const fresh = [];
  const keys = new Set();
  for (const e of events) {
    const k = eventKey(e);
    keys.add(k);
    if (speech.heard && !speech.heard.has(k) && SPOKEN.has(e.type)) fresh.push(e);
  }
  const first = speech.heard === null;       // what was already on the table when the page opened is not said
  speech.heard = keys;                        // the state's window of recent events: an event leaves it for good
  if (first || !speech.on || !fresh.length) return;
  if (!speech.voice) pickVoice();
  const synth = window.speechSynthesis;
  if (!synth || !speech.voice) return;
  for (const e of fresh) {
    const u = new SpeechSynthesisUtterance(e.say || e.text || "");
    u.voice = speech.voice;
    u.lang = speech.voice.lang;
    synth.speak(u);
  }
}

function initLive() {
  initSpeech();
  const refresh = debounced(async () => renderLive(await getJSON("/api/state")), 150);
  refresh();
  connectEvents((ev) => {
    if (ev.type === "setup" || (ev.type === "ledger" && ev.what === "setup")) { location.reload(); return; }
    if (ev.type === "ledger_error") toast(T("ev_error"), true);
    refresh();
  });
  setInterval(refresh, 5000);  // camera status and fps even when nothing happens
  const confirm = $("#confirm-hand");
  if (confirm) confirm.addEventListener("click", async () => {
    const r = await confirmHand({});
    if (r.ok) { if (r.data.recorded) toast(T("hand_confirmed")); } else if (!r.cancelled) toast(errorText(r.data), true);
    refresh();
  });
  const nextHand = $("#next-hand-button");
  if (nextHand) nextHand.addEventListener("click", async () => {
    const table = (await getJSON("/api/state")).table || {};
    const decided = !!table.waiting_for_clear_table;
    const ok = decided
      ? await ask(TF("ask_next_hand", { hand_no: (table.hand_no || 0) + 1 }), [T("ask_next_hand_cards")], T("start"))
      : await ask(TF("ask_next_hand", { hand_no: table.hand_no || 1 }), [TF("ask_hand_again", { hand_no: table.hand_no || 1 })], T("start"));
    if (!ok) return;
    const r = await post("/api/hand/next", {});
    if (r.ok) toast(TF("next_hand_started", { hand_no: r.data.hand_no })); else toast(errorText(r.data), true);
    refresh();
  });
  const form = $("#correct-form");
  if (form) {
    // the host's correction of the card in the dialog: what it really is, or null for "not a card"
    sendCorrection = async (card) => {
      const r = await post("/api/correct", { track_id: Number($("#correct-track").textContent), card,
                                             why: $("#correct-why").value });
      if (r.ok) { $("#correct-dialog").close(); toast(T("corrected")); refresh(); }
      else showError($("#correct-error"), r.data);
    };
    form.addEventListener("submit", (e) => { e.preventDefault(); sendCorrection($("#correct-card").value.trim()); });
    $("#correct-none").addEventListener("click", () => sendCorrection(null));
  }
}

function openCorrection(trackId, card, candidates) {
  const d = $("#correct-dialog");
  if (!d) return;
  $("#correct-was").textContent = card;
  $("#correct-track").textContent = String(trackId);
  $("#correct-card").value = "";
  $("#correct-why").value = "";
  $("#correct-error").hidden = true;
  // an unread card: what the camera thinks it might be, one tap each
  const offer = $("#correct-candidates");
  const cands = candidates || [];
  if (offer) {
    offer.hidden = !cands.length;
    offer.replaceChildren(...(cands.length ? [el("span", { class: "hint" }, T("unread_which"))] : []),
      ...cands.map((c) => el("button", { type: "button", class: cardClass(c), dataset: { card: c },
                                          onclick: () => sendCorrection(c) }, cardLabel(c))));
  }
  d.showModal();
  $("#correct-card").focus();
}

// ------------------------------------------------------------------ scoreboard
function signed(v) { return (Number(v) > 0 ? "+" : "") + v; }
// money arrives as decimal text ("12.50"): shown as it is, never through a binary float
function moneyText(v) { return v === undefined || v === null ? "0.00" : String(v); }
function sign(v) { const s = String(v || "0"); return s.startsWith("-") ? "neg" : /[1-9]/.test(s) ? "pos" : ""; }

function evidenceLink(pics) {
  if (!pics || !pics.length) return null;
  const ends = pics.filter((p) => p.kind === "hand_end");
  const main = (ends.length ? ends : pics)[(ends.length ? ends : pics).length - 1];
  return el("a", { class: "evidence-link", href: main.url, target: "_blank", title: T("evidence"),
                   dataset: { pictures: String(pics.length) } }, "📷" + (pics.length > 1 ? " " + TF("pictures_n", { n: pics.length }) : ""));
}

function renderScoreboard(data) {
  const players = data.session.players || [];
  const bal = data.balances || {}, money = data.money || {}, pot = data.pot || {};
  $("#balances").replaceChildren(...players.map((p) => el("div", { class: "balance " + sign(money[p]), dataset: { player: p } },
    el("span", { class: "name" }, p), el("b", { class: "points" }, signed(bal[p] || 0)),
    el("span", { class: "money" }, moneyText(money[p])))));
  const potBox = $("#pot");
  const back = Object.entries(pot.return || {}).filter(([, v]) => /[1-9]/.test(v));
  potBox.hidden = !(pot.points || /[1-9]/.test(pot.money || "0"));
  potBox.replaceChildren(el("span", { class: "name" }, T("pot_table")), " ",
    el("b", { class: "points" }, String(pot.points || 0) + " " + T("points")), " ",
    el("span", { class: "money" }, moneyText(pot.money)),
    back.length ? el("p", { class: "hint pot-return" }, T("pot_return") + " " + back.map(([p, v]) => p + " " + v).join(", ")) : null);
  const tr = data.transfers || [];
  $("#transfers").replaceChildren(...(tr.length ? tr.map((t) => el("li", { class: "transfer", dataset: { from: t.from, to: t.to } },
    el("b", {}, t.from), " → ", el("b", {}, t.to), ": ", el("span", { class: "money" }, moneyText(t.money))))
    : [el("li", { class: "hint" }, T("all_square"))]));
  const table = $("#hands");
  table.tHead.replaceChildren(el("tr", {}, el("th", {}, "#"), el("th", {}, T("winner")),
    players.map((p) => el("th", {}, p)), el("th", {}, T("bonuses")), HOST ? el("th", {}, "") : null));
  const rows = [];
  for (const h of data.hands || []) {
    const cls = "hand" + (h.undone ? " undone" : "") + (h.corrected ? " corrected" : "");
    rows.push(el("tr", { class: cls, dataset: { handNo: String(h.hand_no), handId: String(h.id) } },
      el("td", {}, String(h.hand_no), el("small", { class: "point-value hint" }, " " + TF("per_point", { money: h.point_value }))),
      el("td", {}, h.winner || "–", evidenceLink(h.evidence), h.undone ? el("small", { class: "tag" }, " " + T("undone")) : null,
        h.corrected ? el("small", { class: "tag" }, " " + T("corrected_tag")) : null),
      players.map((p) => el("td", { class: "num", dataset: { player: p } },
        el("span", { class: "net" }, h.net[p] !== undefined ? signed(h.net[p]) : ""),
        el("small", { class: "running" }, String(h.running[p] || 0)))),
      el("td", { class: "items" }, (h.items || []).map((it) => el("span", { class: "item", title: it.text || "" }, itemText(it))),
        h.result && h.result.maal ? el("div", { class: "maal hint" }, T("maal") + ": " +
          Object.entries(h.result.maal).map(([p, v]) => p + " " + v + (h.result.seen && h.result.seen[p] === false ? " (" + T("unseen") + ")" : "")).join(", ")) : null),
      HOST ? el("td", {}, h.undone ? null : el("button", { class: "small", onclick: () => openNets(h, players) }, T("correct"))) : null));
  }
  table.tBodies[0].replaceChildren(...rows);
  $("#no-hands").hidden = rows.length > 0;
  $("#journal").replaceChildren(...(data.entries || []).slice().reverse().map((e) => el("li", { class: "entry " + e.kind + (e.undone ? " undone" : "") },
    el("time", {}, e.created_at.replace("T", " ").slice(0, 19)), " ", el("b", {}, TK("entry_", e.kind)),
    e.payload && e.payload.hand_no ? " #" + e.payload.hand_no : "",
    " · " + journalWord(e.who) + (e.why ? " — " + journalWord(e.why) : ""),
    Object.keys(e.payments || {}).length ? el("small", {}, " (" + Object.entries(e.payments).map(([p, v]) => p + " " + signed(v)).join(", ") + ")") : null)));
}

// The balances hand by hand, drawn here as inline SVG (no outside request). The lines are plotted from
// the exact money texts as numbers; every number written on the chart is the server's exact text.
const SVG = "http://www.w3.org/2000/svg";
const LINE_COLOURS = ["#ffd34d", "#4fc3f7", "#ff7eb6", "#8dff6b", "#ff9f43"];
function svg(tag, attrs, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, String(v));
  for (const c of children.flat()) if (c !== null && c !== undefined) node.append(c.nodeType ? c : document.createTextNode(String(c)));
  return node;
}

function renderChart(players, hands) {
  const box = $("#chart");
  renderChart.last = [players, hands];
  const kept = hands.filter((h) => h.running_money);
  if (!kept.length) { box.replaceChildren(el("p", { class: "hint" }, T("no_hands"))); return; }
  const zero = moneyText(null);
  // one point per hand, after a starting point of zero for everyone
  const series = players.map((p) => [zero].concat(kept.map((h) => (h.running_money[p] !== undefined ? h.running_money[p] : null))));
  for (const s of series) for (let i = 1; i < s.length; i++) if (s[i] === null) s[i] = s[i - 1];
  const values = series.flat().map(Number);
  let lo = Math.min(0, ...values), hi = Math.max(0, ...values);
  if (hi === lo) { hi += 1; lo -= 1; }
  // drawn at the box's own width, so that the writing stays the page's size on a phone and a laptop
  const W = Math.max(300, Math.round(box.clientWidth || 360)), H = Math.round(Math.min(280, Math.max(180, W * 0.45)));
  const L = 22, R = 22, TOP = 10, BOTTOM = 22;
  const n = kept.length;
  const x = (i) => L + (W - L - R) * (n ? i / n : 0);
  const y = (v) => TOP + (H - TOP - BOTTOM) * (hi - v) / (hi - lo);
  const parts = [svg("line", { x1: L, x2: W - R, y1: y(0), y2: y(0), class: "zero" })];
  const step = Math.max(1, Math.ceil(n / Math.max(4, Math.floor(W / 60))));
  for (let i = 0; i <= n; i += step)
    parts.push(svg("text", { x: x(i), y: H - 6, "text-anchor": "middle", class: "tick" }, i ? "#" + kept[i - 1].hand_no : T("chart_start")));
  series.forEach((s, k) => {
    const colour = LINE_COLOURS[k % LINE_COLOURS.length];
    parts.push(svg("polyline", { points: s.map((v, i) => x(i) + "," + y(Number(v))).join(" "), stroke: colour,
                                 class: "line" }));
    s.forEach((v, i) => parts.push(svg("circle", { cx: x(i), cy: y(Number(v)), r: 3, fill: colour },
      svg("title", {}, players[k] + " · " + (i ? "#" + kept[i - 1].hand_no : T("chart_start")) + " · " + v))));
  });
  const chart = svg("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": T("chart_title"), class: "chart-svg" }, parts);
  const last = kept[kept.length - 1].running_money;
  const legend = el("ul", { class: "legend" }, players.map((p, k) => el("li", { dataset: { player: p } },
    el("span", { class: "swatch", style: "background:" + LINE_COLOURS[k % LINE_COLOURS.length] }), p + " ",
    el("b", { class: "money " + sign(last[p]) }, moneyText(last[p])))));
  box.replaceChildren(chart, legend);
}

// Every player across every session: hands played and won, net, best hand (money as exact text).
function renderTotals(data) {
  const table = $("#totals");
  table.tHead.replaceChildren(el("tr", {}, el("th", {}, T("totals_player")), el("th", { class: "num" }, T("totals_sessions")),
    el("th", { class: "num" }, T("totals_hands")), el("th", { class: "num" }, T("totals_won")),
    el("th", { class: "num" }, T("totals_net")), el("th", {}, T("totals_best"))));
  table.tBodies[0].replaceChildren(...(data.players || []).map((p) => el("tr", { dataset: { player: p.player } },
    el("td", {}, el("b", {}, p.player)), el("td", { class: "num" }, String(p.sessions)),
    el("td", { class: "num hands-played" }, String(p.hands)), el("td", { class: "num hands-won" }, String(p.won)),
    el("td", { class: "num net " + sign(p.money) }, el("span", { class: "money" }, moneyText(p.money)),
      el("small", { class: "running" }, signed(p.points) + " " + T("points"))),
    el("td", { class: "best" }, p.best ? [el("span", { class: "money" }, moneyText(p.best.money)),
      el("small", { class: "running" }, TF("totals_session_hand", { session: p.best.session_id, hand_no: p.best.hand_no }))] : "–"))));
}

let netsTarget = null;
function openNets(hand, players) {
  netsTarget = hand;
  $("#nets-title").textContent = hand ? T("correct_hand") + " #" + hand.hand_no : T("enter_hand");
  $("#nets-fields").replaceChildren(...players.map((p) => el("label", {}, p,
    el("input", { type: "number", step: "1", dataset: { player: p }, value: hand ? String(hand.net[p] || 0) : "0" }))));
  $("#nets-why").value = "";
  $("#nets-error").hidden = true;
  $("#nets-dialog").showModal();
}

function initScoreboard() {
  const refresh = debounced(async () => {
    const [data, totals] = await Promise.all([getJSON("/api/ledger"), getJSON("/api/totals")]);
    renderScoreboard(data);
    renderChart(data.session.players || [], data.hands || []);
    renderTotals(totals);
  }, 150);
  refresh();
  connectEvents((ev) => { if (ev.type === "ledger" || ev.type === "resync" || ev.type === "hand_end") refresh(); });
  let resized = null;
  window.addEventListener("resize", () => {
    clearTimeout(resized);
    resized = setTimeout(() => { if (renderChart.last) renderChart(...renderChart.last); }, 200);
  });
  if (!HOST) return;
  $("#undo-last").addEventListener("click", async () => {
    const why = prompt(T("why_undo"));
    if (!why) return;
    const r = await post("/api/undo", { why });
    if (r.ok) { toast(T("undone")); refresh(); } else toast(errorText(r.data), true);
  });
  $("#manual-hand").addEventListener("click", async () => {
    const data = await getJSON("/api/ledger");
    openNets(null, data.session.players);
  });
  $("#new-session").addEventListener("click", async () => {
    const why = prompt(T("why_new_session"));
    if (why === null) return;
    const r = await post("/api/session/new", { why });
    if (r.ok) refresh(); else toast(errorText(r.data), true);
  });
  $("#nets-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const net = {};
    document.querySelectorAll("#nets-fields input").forEach((i) => { net[i.dataset.player] = Number(i.value || 0); });
    const why = $("#nets-why").value;
    const r = netsTarget ? await post("/api/hand/correct", { hand_id: netsTarget.id, net, why })
      : await post("/api/hand/manual", { net, why, winner: Object.entries(net).sort((a, b) => b[1] - a[1])[0][0] });
    if (r.ok) { $("#nets-dialog").close(); refresh(); } else showError($("#nets-error"), r.data);
  });
}

// ------------------------------------------------------------------ setup and zone calibration
function initSetup() {
  const form = $("#setup-form");
  const ranges = JSON.parse(form.dataset.seatRange);
  const game = $("#game"), seatsN = $("#seats-n"), players = $("#players");
  const syncGame = () => {
    document.querySelectorAll("fieldset.rules").forEach((f) => { f.hidden = f.dataset.game !== game.value; });
    const [lo, hi] = ranges[game.value];
    seatsN.min = lo; seatsN.max = hi;
  };
  const syncSeats = () => {
    const n = Math.max(2, Math.min(5, Number(seatsN.value) || 4));
    const inputs = players.querySelectorAll("input");
    // a new seat's player gets the first of the default names (the server's) not yet at the table
    const taken = new Set([...inputs].map((x) => x.value));
    const free = JSON.parse(form.dataset.defaultNames).filter((name) => !taken.has(name));
    for (let i = inputs.length; i < n; i++)
      players.append(el("label", {}, T("seat") + " " + (i + 1) + " ", el("input", { name: "player", maxlength: "24", required: true,
                                                                                  value: free.shift() || T("seat") + " " + (i + 1) })));
    players.querySelectorAll("label").forEach((l, i) => { if (i >= n) l.remove(); });
    drawZones();
  };
  game.addEventListener("change", syncGame);
  seatsN.addEventListener("input", syncSeats);
  syncGame();
  if (!HOST) return;
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const rules = {};
    const fs = document.querySelector(`fieldset.rules[data-game="${game.value}"]`);
    fs.querySelectorAll("[data-rule]").forEach((i) => {
      const def = JSON.parse(i.dataset.default);
      let v = i.type === "checkbox" ? i.checked : i.value;
      if (i.dataset.type === "int") v = Number(v);
      if (v !== def) rules[i.dataset.rule] = v;   // only what differs from the default
    });
    const body = {
      game: game.value, seats: Number(seatsN.value),
      players: [...players.querySelectorAll("input")].map((i) => i.value),
      stake: Number(form.elements.stake.value), point_value: Number(form.elements.point_value.value),
      source: form.elements.source.value, rules,
    };
    $("#setup-ok").hidden = true; $("#setup-error").hidden = true;
    const r = await post("/api/setup", body);
    if (r.ok) { $("#setup-ok").hidden = false; toast(T("saved")); }
    else showError($("#setup-error"), r.data);
  });
  initZones();
}

const zones = { polys: {}, img: null, target: "seat0" };
function zoneTargets() {
  const n = Number($("#seats-n").value) || 4;
  const names = [...document.querySelectorAll("#players input")].map((i) => i.value);
  const out = [];
  for (let i = 0; i < n; i++) out.push(["seat" + i, T("seat") + " " + (i + 1) + (names[i] ? " (" + names[i] + ")" : "")]);
  out.push(["centre", T("centre")]);
  return out;
}

function drawZones() {
  const cv = $("#zone-canvas");
  if (!cv) return;
  const sel = $("#zone-target");
  const keep = sel.value || zones.target;
  sel.replaceChildren(...zoneTargets().map(([k, label]) => el("option", { value: k, selected: k === keep }, label)));
  const g = cv.getContext("2d");
  g.clearRect(0, 0, cv.width, cv.height);
  if (zones.img) g.drawImage(zones.img, 0, 0, cv.width, cv.height);
  else { g.fillStyle = "#333"; g.fillRect(0, 0, cv.width, cv.height); }
  const colours = ["#ffd000", "#00e0ff", "#ff6bd6", "#8dff6b", "#ff8a3d"];
  for (const [k, pts] of Object.entries(zones.polys)) {
    g.strokeStyle = k === "centre" ? "#ffffff" : colours[Number(k.slice(4)) % colours.length];
    g.lineWidth = 3;
    g.beginPath();
    pts.forEach(([x, y], i) => { const px = x * cv.width, py = y * cv.height; if (i) g.lineTo(px, py); else g.moveTo(px, py); });
    if (pts.length >= 3) g.closePath();
    g.stroke();
    pts.forEach(([x, y]) => { g.fillStyle = g.strokeStyle; g.fillRect(x * cv.width - 4, y * cv.height - 4, 8, 8); });
  }
}

function initZones() {
  const cv = $("#zone-canvas");
  if (!cv) return;
  const still = () => {
    const img = new Image();
    img.onload = () => { zones.img = img; cv.width = img.naturalWidth; cv.height = img.naturalHeight; drawZones(); };
    img.onerror = () => showError($("#zone-error"), { error: T("no_frame") });
    img.src = "/snapshot.jpg?t=" + Date.now();
  };
  still();
  $("#zone-still").addEventListener("click", still);
  $("#zone-target").addEventListener("change", (e) => { zones.target = e.target.value; });
  $("#zone-clear").addEventListener("click", () => { delete zones.polys[$("#zone-target").value]; drawZones(); });
  cv.addEventListener("click", (e) => {
    const r = cv.getBoundingClientRect();
    const clamp = (v) => Math.min(1, Math.max(0, v));
    const x = clamp((e.clientX - r.left) / r.width), y = clamp((e.clientY - r.top) / r.height);
    const k = $("#zone-target").value;
    const pts = zones.polys[k] && zones.polys[k].length < 4 ? zones.polys[k] : [];
    pts.push([x, y]);
    zones.polys[k] = pts;
    if (pts.length === 4) {  // four corners: move on to the next zone
      const opts = [...$("#zone-target").options];
      const i = opts.findIndex((o) => o.value === k);
      if (i + 1 < opts.length) $("#zone-target").value = opts[i + 1].value;
    }
    drawZones();
  });
  $("#zone-save").addEventListener("click", async () => {
    $("#zone-ok").hidden = true; $("#zone-error").hidden = true;
    const w = cv.width, h = cv.height;
    const scale = (pts) => pts.map(([x, y]) => [Math.round(x * w), Math.round(y * h)]);
    const n = Number($("#seats-n").value) || 4;
    const seats = [];
    for (let i = 0; i < n; i++) seats.push({ polygon: scale(zones.polys["seat" + i] || []) });
    const r = await post("/api/zones", { frame_size: [w, h], seats, centre: scale(zones.polys.centre || []) });
    if (r.ok) $("#zone-ok").hidden = false; else showError($("#zone-error"), r.data);
  });
}

// ------------------------------------------------------------------ Marriage count
function renderCount(state) {
  const table = state.table || {};
  const box = $("#count-seats");
  const tiplu = $("#tiplu");
  const centre = (table.centre && table.centre.cards) || [];
  const known = table.tiplu || centre[0];
  if (known && !tiplu.value) tiplu.value = known;
  const cands = table.winner_candidates || [];
  const prev = {};
  const active = document.activeElement;
  const seatOf = active && box.contains(active) ? active.closest("article[data-player]") : null;
  const focused = seatOf && active.classList.length ? { player: seatOf.dataset.player, cls: active.classList[0], value: active.value } : null;
  // the seats only (a host-entered maal's input names its player too)
  box.querySelectorAll(":scope > article[data-player]").forEach((n) => {
    const m = $(".host-maal", n);
    prev[n.dataset.player] = { seen: $(".seen", n).checked, winner: $(".winner-pick", n).checked, touched: n.dataset.touched === "yes",
                               maal: m && m.value !== "" ? m.value : undefined };
  });
  box.replaceChildren(...(table.seats || []).map((s) => {
    const count = s.count || null;
    const cards = [].concat(...(s.melds || []).map((m) => m.cards || []), (s.loose || []).map((c) => c.card || c));
    const arrangement = (count && count.arrangement) || [];
    const items = (count && count.maal_items) || [];
    const p = prev[s.player] || {};
    const seen = p.touched ? p.seen : !!(count && count.seen);
    const isWinner = p.touched ? p.winner : (table.winner ? table.winner === s.player : cands.length === 1 && cands[0] === s.player);
    const node = el("article", { class: "seat count", dataset: { player: s.player, touched: p.touched ? "yes" : "no" } },
      el("header", {}, el("b", {}, s.player), el("span", { class: "count" }, cards.length + " " + T("cards_short"))),
      cards.length ? el("div", { class: "cards" }, cards.map((c) => cardNode(c))) : el("p", { class: "hint" }, T("not_scanned")),
      arrangement.length ? el("div", { class: "arrangement" }, el("span", { class: "hint" }, T("arrangement") + ": "),
        arrangement.map((m, i) => el("span", { class: "group", title: (count.kinds || [])[i] ? TK("kind_", count.kinds[i]) : "" }, m.map((c) => cardNode(c))))) : null,
      count ? el("div", { class: "maal" }, T("maal") + ": ", el("b", { class: "maal-points" }, String(count.maal)),
        count.maal_paid !== count.maal ? el("span", { class: "hint" }, " (" + T("maal_paid") + " " + count.maal_paid + ")") : null,
        items.length ? el("ul", {}, items.map((it) => el("li", {}, TK("item_", it.item) + " ", (it.cards || []).map((c) => cardNode(c)), " = " + it.points))) : null) : null,
      count ? el("p", { class: "hint" }, count.can_finish ? T("can_finish") : T("cannot_finish")) : null,
      count ? null : el("label", {}, T("maal_by_host") + " ", el("input", { type: "number", min: "0", step: "1",
        class: "host-maal", dataset: { player: s.player }, value: p.maal !== undefined ? p.maal : "" })),
      el("label", {}, el("input", { type: "checkbox", class: "seen", checked: seen }), " " + T("seen_joker")),
      el("label", {}, el("input", { type: "radio", name: "winner", class: "winner-pick", value: s.player, checked: isWinner }), " " + T("ended_hand")));
    node.addEventListener("change", () => { node.dataset.touched = "yes"; });
    return node;
  }));
  if (focused) {   // a refresh while the host types: the same field keeps the cursor
    const again = box.querySelector(`:scope > article[data-player="${CSS.escape(focused.player)}"] .${focused.cls}`);
    if (again) { again.focus(); if (focused.cls === "host-maal") again.value = focused.value; }
  }
  const result = table.result;
  if (result && result.net) {
    $("#count-result").hidden = false;
    $("#count-nets").replaceChildren(...Object.entries(result.net).map(([p, v]) =>
      el("div", { class: "balance " + (v > 0 ? "pos" : v < 0 ? "neg" : ""), dataset: { player: p } }, el("span", { class: "name" }, p), el("b", {}, signed(v)))));
  } else $("#count-result").hidden = true;
}

function initCount() {
  const refresh = debounced(async () => renderCount(await getJSON("/api/state")), 200);
  refresh();
  connectEvents(() => refresh());
  const form = $("#count-form");
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    if (!HOST) return;
    const seen = {};
    let winner = null;
    document.querySelectorAll("#count-seats > article[data-player]").forEach((n) => {
      seen[n.dataset.player] = $(".seen", n).checked;
      if ($(".winner-pick", n).checked) winner = n.dataset.player;
    });
    const maal = {};
    document.querySelectorAll("#count-seats .host-maal").forEach((i) => {
      if (i.value.trim() !== "") maal[i.dataset.player] = Number(i.value);
    });
    const body = { seen, winner };
    if (Object.keys(maal).length) body.maal = maal;
    if ($("#tiplu").value.trim()) body.tiplu = $("#tiplu").value.trim();
    $("#count-error").hidden = true;
    const r = await confirmHand(body);
    if (r.ok) { if (r.data.recorded) toast(T("settled")); refresh(); } else if (!r.cancelled) showError($("#count-error"), r.data);
  });
}

({ live: initLive, scoreboard: initScoreboard, setup: initSetup, count: initCount }[PAGE] || (() => {}))();
