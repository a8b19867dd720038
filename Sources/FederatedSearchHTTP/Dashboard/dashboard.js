// The fedsearchd web dashboard: one search box, a column per index filled in as its answer
// streams in (POST /1/federated/stream), the merged list rebuilt as each index answers, facet
// panels (values, or ranges for numeric attributes) with disjunctive refinement per index, the
// current filters, and each source's state and time. Live (the Live button, on for the empty
// query until switched), the search is a subscription (POST /1/federated/subscribe): each write
// that changes a column's answer comes as an update frame, applied to the page held, and the
// hits it brought are marked for a moment. It needs only a key that may search: the
// indices come from ?indices=, a secured key's restrictIndices, the index list if the key may
// read it, or else the first answer; the facets come from the answers (facets: ["*"]).
"use strict";

const HITS = 8;
const SLOW_MS = 100;
const KEY_STORAGE = "fedsearch.apiKey";
const LIVE_INTERVAL_MS = 100;
const FRESH_MS = 4000;
const RESUME_FIRST_MS = 500;
const RESUME_MAX_MS = 30000;

const state = {
  indices: [],          // the columns' indices, in order
  indicesKnown: false,  // false until the daemon said which indices the key searches
  facets: {},           // index -> [attribute], in the order first seen (a panel never goes away)
  stats: {},            // index -> attribute -> {min, max} (numeric attributes)
  counts: {},           // index -> attribute -> {value: count}, of the latest answer
  exhaustive: {},       // index -> whether its counts are exhaustive
  refinements: {},      // index -> attribute -> Set(values)
  ranges: {},           // index -> attribute -> {min, max}
  answers: {},          // column -> {query, hits, nbHits, page} on show
  pending: new Set(),   // indices the current search still waits for
  mergedFinal: false,   // whether the merged column holds the daemon's merged list
  query: "",
  seq: 0,
  session: "dash-" + Math.random().toString(36).slice(2),
  controller: null,
  tab: MERGED,
  started: 0,
  live: null,           // true or false once switched by the Live button; null: live for the empty query
  pages: {},            // column -> the live answer's page held (results object, or merged frame)
  liveSeq: 0,           // the last update or resync taken
  liveNow: false,       // whether the answer shown is live
  lastEventId: null,    // the live stream's last event id, to resume it
  resumeTimer: null,
  resumeDelay: 500,
};

function isLive() { return state.live === null ? state.query === "" : state.live; }

// ---- The key ----------------------------------------------------------------------------

function apiKey() { return localStorage.getItem(KEY_STORAGE) || ""; }

function headers() {
  const h = { "Content-Type": "text/plain" };
  const key = apiKey();
  if (key) h["X-Algolia-API-Key"] = key;
  return h;
}

// The indices a secured API key is restricted to, when it names them exactly.
function securedKeyIndices(key) {
  try {
    const text = atob(key);
    if (text.length <= 64 || !/^[0-9a-f]{64}/.test(text)) return null;
    const value = new URLSearchParams(text.slice(64)).get("restrictIndices");
    if (!value) return null;
    const names = value.startsWith("[") ? JSON.parse(value) : value.split(/[,;]/).map((s) => s.trim()).filter((s) => s);
    return names.some((n) => n.includes("*")) ? null : names;
  } catch (e) {
    return null;
  }
}

function showKey() {
  const key = apiKey();
  $("open-key").textContent = key ? "Key …" + key.slice(-4) : "Key";
}

function banner(text) {
  const b = $("banner");
  b.textContent = text || "";
  b.hidden = !text;
}

// What to tell the user about a refused request.
function refusal(status, body) {
  const message = (body && body.message) || "HTTP " + status;
  if (status === 403) return `This key may not do that: ${message}. Give a key that may search (Key, top right).`;
  return message;
}

// ---- Start ------------------------------------------------------------------------------

async function start() {
  const params = new URLSearchParams(location.search);
  // A key in the address is kept in storage and taken out of the address.
  if (params.get("key")) {
    localStorage.setItem(KEY_STORAGE, params.get("key"));
    params.delete("key");
    history.replaceState(null, "", location.pathname + (params.toString() ? "?" + params : ""));
  }
  showKey();
  let names = params.get("indices") ? params.get("indices").split(",").map((s) => s.trim()).filter((s) => s) : null;
  names = names || securedKeyIndices(apiKey());
  if (!names) {
    // The index list, if this key may read it (listIndexes); otherwise the first answer says.
    const r = await fetch("/1/indexes", { headers: headers() }).catch(() => null);
    if (r && r.ok) names = (await r.json()).items.map((i) => i.name);
  }
  if (names) setIndices(names);
  search();
}

function setIndices(names) {
  state.indices = [];
  state.indicesKnown = true;
  $("columns").replaceChildren(createColumn(MERGED, "All indices (merged)", () => more(MERGED)));
  for (const name of names) addIndex(name);
}

// A column for one more index (at start, or as the first answer names them).
function addIndex(name) {
  if (state.indices.includes(name)) return;
  if (!columnElement(MERGED)) $("columns").appendChild(createColumn(MERGED, "All indices (merged)", () => more(MERGED)));
  state.indices.push(name);
  state.facets[name] = state.facets[name] || [];
  state.refinements[name] = state.refinements[name] || {};
  state.ranges[name] = state.ranges[name] || {};
  $("columns").appendChild(createColumn(name, name, () => more(name)));
  renderTabsNow();
}

function renderTabsNow() {
  const counts = {};
  for (const [name, a] of Object.entries(state.answers)) counts[name] = state.pending.has(name) ? null : a.nbHits;
  renderTabs([MERGED, ...state.indices], state.tab, counts, (name) => { state.tab = name; renderTabsNow(); });
}

// ---- Requests ---------------------------------------------------------------------------

// Each index's own refinements: facet values (ORed within an attribute, disjunctive) and ranges.
function perIndex() {
  const out = {};
  for (const name of state.indices) {
    const facetFilters = [], numericFilters = [], disjunctive = [];
    for (const [attr, values] of Object.entries(state.refinements[name] || {})) {
      if (!values.size) continue;
      facetFilters.push([...values].map((v) => attr + ":" + v));
      disjunctive.push(attr);
    }
    for (const [attr, r] of Object.entries(state.ranges[name] || {})) {
      if (r.min != null) numericFilters.push(`${attr}>=${r.min}`);
      if (r.max != null) numericFilters.push(`${attr}<=${r.max}`);
    }
    if (facetFilters.length || numericFilters.length) out[name] = { facetFilters, numericFilters, disjunctiveFacets: disjunctive };
  }
  return out;
}

function searchBody(extra) {
  const body = {
    query: state.query,
    params: { hitsPerPage: HITS, highlightPreTag: PRE, highlightPostTag: POST, facets: ["*"], maxValuesPerFacet: 10 },
    perIndex: perIndex(),
    merge: { limit: HITS },
  };
  if (state.indicesKnown) body.indices = state.indices;
  return Object.assign(body, extra || {});
}

// `resume`: a live search's stream ended under it (a restart, the network): it subscribes
// again with the last event id, and the daemon sends what changed since, or the whole answer.
async function search(resume) {
  state.seq += 1;
  const seq = state.seq;
  if (state.controller) state.controller.abort();
  const controller = new AbortController();
  state.controller = controller;
  const live = isLive();
  state.liveNow = false;
  showLive();
  if (!resume) {
    clearTimeout(state.resumeTimer);
    state.resumeDelay = RESUME_FIRST_MS;
    state.started = performance.now();
    state.pending = new Set(state.indices);
    state.mergedFinal = false;
    state.pages = {};
    state.liveSeq = 0;
    state.lastEventId = null;
    // Until its own answer comes, each column shows the previous query's, marked as such.
    for (const name of [MERGED, ...state.indices]) {
      setStatus(name, "searching…", "searching");
      if (state.answers[name]) setStale(name, state.answers[name].query, "searching");
    }
    $("summary").textContent = `Searching ${quoted(state.query)}…`;
    renderChips();
  }
  let response;
  try {
    // A subscription is not part of the keystroke session: aborting it (the next search) ends it.
    const body = live ? searchBody({ minIntervalMs: LIVE_INTERVAL_MS }) : searchBody({ session: state.session, seq });
    const h = headers();
    if (resume && state.lastEventId) h["Last-Event-ID"] = state.lastEventId;
    response = await fetch(live ? "/1/federated/subscribe" : "/1/federated/stream", {
      method: "POST", body: JSON.stringify(body), signal: controller.signal, headers: h,
    });
  } catch (e) {
    if (e.name !== "AbortError") {
      unreachable(e.message);
      if (live) resumeLater(seq);
    }
    return;
  }
  if (!response.ok) {
    const body = await response.json().catch(() => ({}));
    banner(refusal(response.status, body));
    $("summary").textContent = "Refused: " + ((body && body.message) || response.status);
    for (const name of [MERGED, ...state.indices]) {
      setStatus(name, "refused", "error");
      if (state.answers[name]) setStale(name, state.answers[name].query, "refused");
    }
    return;
  }
  banner("");
  if (live && resume) {
    // Resumed: live again (what changed meanwhile follows, if anything did).
    state.liveNow = true;
    state.resumeDelay = RESUME_FIRST_MS;
    showLive();
    $("summary").textContent = `Live again: ${quoted(state.query)}`;
  }
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffered = "";
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffered += decoder.decode(value, { stream: true });
      let end;
      while ((end = buffered.indexOf("\n\n")) >= 0) {
        const event = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        for (const line of event.split("\n")) {
          if (seq !== state.seq) continue;
          if (line.startsWith("id: ")) state.lastEventId = line.slice(4);
          if (line.startsWith("data: ")) handle(JSON.parse(line.slice(6)));
        }
      }
    }
  } catch (e) {
    if (e.name === "AbortError") return;
    unreachable(e.message);
  }
  // A live stream never ends by itself: the daemon went, or the network; subscribe again.
  if (live && seq === state.seq) resumeLater(seq);
}

// Subscribes again after a pause that doubles up to RESUME_MAX_MS, unless a newer search came.
function resumeLater(seq) {
  state.liveNow = false;
  showLive();
  $("summary").textContent = "Live stream lost: reconnecting…";
  clearTimeout(state.resumeTimer);
  state.resumeTimer = setTimeout(() => { if (seq === state.seq) search(true); }, state.resumeDelay);
  state.resumeDelay = Math.min(state.resumeDelay * 2, RESUME_MAX_MS);
}

function unreachable(message) {
  banner(`The daemon is not answering here (${message}). Start it with: make run`);
  for (const name of [MERGED, ...state.indices]) {
    setStatus(name, "daemon unreachable", "error");
    if (state.answers[name]) setStale(name, state.answers[name].query, "daemon unreachable");
  }
  $("summary").textContent = "Daemon unreachable";
}

function handle(frame) {
  switch (frame.type) {
    case "results":
      // A first answer (a new subscription): its updates count from 1.
      state.liveSeq = 0;
      state.pages[frame.index] = frame.results;
      return answered(frame.index, frame.results);
    case "error":
      if (!frame.index) return banner(frame.error.message);
      if (!state.indicesKnown) addIndex(frame.index);
      state.pending.delete(frame.index);
      delete state.answers[frame.index];
      setStale(frame.index, null);
      renderError(frame.index, `${frame.index}: ${frame.error.message}`);
      setMore(frame.index, false);
      return progress();
    case "merged":
      state.pages[MERGED] = frame;
      return showMerged(frame);
    case "done": return finish(frame);
    case "update":
    case "resync":
      return liveFrame(frame);
  }
}

function showMerged(merged) {
  state.mergedFinal = true;
  state.answers[MERGED] = { query: state.query, hits: merged.hits, nbHits: merged.nbHits, page: 0 };
  setStale(MERGED, null);
  renderHits(MERGED, merged.hits, "No results in any index.");
  setMore(MERGED, merged.hits.length < merged.nbHits);
  setStatus(MERGED, `${count(merged.nbHits)} hits in all`, "ok");
  renderTabsNow();
}

// ---- Live -------------------------------------------------------------------------------

// An update or resync of the live answer: the changed column shown again, its new hits marked.
// A frame that does not follow the last one, or does not fit the page held, subscribes again.
function liveFrame(frame) {
  if (frame.seq !== state.liveSeq + 1) return search();
  state.liveSeq = frame.seq;
  const name = frame.merged ? MERGED : frame.index;
  const old = state.pages[name];
  const page = frame.type === "resync" ? (frame.merged ? frame : frame.results) : old && applyDelta(old, frame);
  if (!page) return search();
  state.pages[name] = page;
  if (name === MERGED) showMerged(page); else answered(name, page);
  markFresh(name, freshHits(old, page));
}

// The page `old` with an update's delta applied (docs/PROTOCOL.md: positions in the old page
// removed, moved, added, changed); null if it does not fit.
function applyDelta(old, delta) {
  const hits = old.hits || [];
  const removed = new Set(delta.removed || []);
  const added = delta.added || [];
  const count = hits.length - removed.size + added.length;
  if (count < 0) return null;
  const slots = new Array(count);
  const movedTo = new Map((delta.moved || []).map((m) => [m.from, m.to]));
  for (let i = 0; i < hits.length; i++) {
    if (removed.has(i)) continue;
    const to = movedTo.has(i) ? movedTo.get(i) : i;
    if (to >= count || slots[to] !== undefined) return null;
    slots[to] = hits[i];
  }
  for (const a of added) {
    if (a.position >= count || slots[a.position] !== undefined) return null;
    slots[a.position] = a.hit;
  }
  for (const c of delta.changed || []) {
    if (slots[c.position] === undefined) return null;
    slots[c.position] = c.hit;
  }
  for (let i = 0; i < count; i++) if (slots[i] === undefined) return null;
  const page = Object.assign({}, old, delta.set || {}, { hits: slots });
  for (const key of delta.unset || []) delete page[key];
  if (delta.facets) {
    const facets = Object.assign({}, page.facets || {});
    for (const [attr, counts] of Object.entries(delta.facets)) {
      if (counts === null) delete facets[attr]; else facets[attr] = counts;
    }
    page.facets = facets;
  }
  return page;
}

// The objectIDs of the hits of `page` that `old` did not hold, or held with other attributes
// (ranking members and highlights move with every write: not looked at).
function freshHits(old, page) {
  const key = (h) => (h._index || "") + "\u0000" + h.objectID;
  const attributes = (h) => JSON.stringify(Object.entries(h).filter(([k]) => !k.startsWith("_")));
  const before = new Map(((old && old.hits) || []).map((h) => [key(h), attributes(h)]));
  return new Set(page.hits.filter((h) => before.get(key(h)) !== attributes(h)).map((h) => h.objectID));
}

function markFresh(name, ids) {
  const col = columnElement(name);
  if (!col || !ids.size) return;
  for (const li of col.querySelectorAll(".hit")) {
    if (!ids.has(li.dataset.objectId)) continue;
    li.classList.add("fresh");
    setTimeout(() => li.classList.remove("fresh"), FRESH_MS);
  }
}

// The Live button: pressed while searches are live, marked while the answer shown is.
function showLive() {
  const button = $("live");
  button.setAttribute("aria-pressed", String(isLive()));
  button.textContent = state.liveNow ? "● Live" : "Live";
  button.title = isLive() ? "Live: writes show as they land (click to stop)" : "Not live (click to follow writes)";
}

// One index answered the current query: its column, its facets, the merged list so far.
function answered(name, results) {
  if (!state.indicesKnown) addIndex(name);
  state.pending.delete(name);
  state.answers[name] = { query: state.query, hits: results.hits, nbHits: results.nbHits, page: 0 };
  state.counts[name] = results.facets || {};
  state.exhaustive[name] = results.exhaustiveFacetsCount !== false;
  // A numeric attribute stays a range control when an answer has no statistics for it.
  state.stats[name] = Object.assign(state.stats[name] || {}, results.facets_stats || {});
  for (const attr of Object.keys(results.facets || {})) {
    if (!state.facets[name].includes(attr)) state.facets[name].push(attr);
  }
  setStale(name, null);
  renderHits(name, results.hits, noResults(name));
  setMore(name, results.hits.length < results.nbHits);
  setStatus(name, `${count(results.nbHits)} hits`, "ok");
  renderFacets();
  progress();
}

// While indices are pending: the merged list of the answers so far (by ranking score), and
// the summary of who answered.
function progress() {
  if (!state.mergedFinal) {
    const answered = state.indices.filter((n) => !state.pending.has(n) && state.answers[n] && state.answers[n].query === state.query);
    const hits = mergeByScore(answered.map((n) => state.answers[n].hits.map((h) => Object.assign({ _index: n }, h))), HITS);
    const total = answered.reduce((t, n) => t + state.answers[n].nbHits, 0);
    state.answers[MERGED] = { query: state.query, hits, nbHits: total, page: 0 };
    renderHits(MERGED, hits, "No results in the indices that answered yet.");
    setMore(MERGED, false);
    const waiting = state.indices.filter((n) => state.pending.has(n));
    if (waiting.length) {
      setStale(MERGED, null);
      setStatus(MERGED, `${count(total)} hits so far · waiting for ${waiting.join(", ")}`, "searching");
    }
  }
  const waiting = state.indices.filter((n) => state.pending.has(n));
  const answeredCount = state.indices.length - waiting.length;
  if (waiting.length) {
    $("summary").textContent = `Searching ${quoted(state.query)}: ${answeredCount} of ${state.indices.length} indices answered, waiting for ${waiting.join(", ")}`;
  }
  renderTabsNow();
}

// The first `limit` hits of several ranked lists, each kept in its own order, the list whose
// next hit has the best ranking score going first (ties to the earlier list).
function mergeByScore(lists, limit) {
  const at = lists.map(() => 0);
  const out = [];
  while (out.length < limit) {
    let best = -1;
    for (let i = 0; i < lists.length; i++) {
      if (at[i] >= lists[i].length) continue;
      if (best < 0 || (lists[i][at[i]]._rankingScore || 0) > (lists[best][at[best]]._rankingScore || 0)) best = i;
    }
    if (best < 0) break;
    out.push(lists[best][at[best]++]);
  }
  return out;
}

function finish(done) {
  if (done.status === "superseded") return;
  if (!state.indicesKnown) {
    // The first answer named every index this key searches.
    for (const name of Object.keys(done.sources || {})) addIndex(name);
    state.indicesKnown = true;
  }
  let total = 0;
  for (const [name, report] of Object.entries(done.sources || {})) {
    state.pending.delete(name);
    const ms = report.ms != null ? report.ms.toFixed(1) + " ms" : "";
    if (report.status === "ok") {
      total += report.nbHits || 0;
      setStatus(name, `${count(report.nbHits)} hits · ${ms}`, report.ms >= SLOW_MS ? "slow" : "ok");
    } else {
      setStatus(name, `${report.status} · ${ms}`, ["skipped", "timeout"].includes(report.status) ? report.status : "error");
    }
  }
  if (!state.mergedFinal) progress();
  const n = Object.keys(done.sources || {}).length;
  state.liveNow = isLive();
  showLive();
  $("summary").textContent = `${count(total)} hits for ${quoted(state.query)} in ${n} ${n === 1 ? "index" : "indices"} · ${done.status} · ${done.ms.toFixed(1)} ms` +
    (state.liveNow ? " · live" : "");
  renderTabsNow();
}

// "No results for 'xyz' in movies; 2 in products."
function noResults(name) {
  const others = state.indices.filter((n) => n !== name && state.answers[n] && state.answers[n].query === state.query && state.answers[n].nbHits > 0)
    .map((n) => `${count(state.answers[n].nbHits)} in ${n}`);
  return `No results for ${quoted(state.query)} in ${name}` + (others.length ? `; ${others.join(", ")}.` : ".");
}

// The next page of a column: an index's own next page, or the merged list's next hits.
async function more(name) {
  const shown = state.answers[name];
  if (!shown || shown.query !== state.query) return;
  const seq = state.seq;
  setMore(name, false);
  const body = name === MERGED
    ? searchBody({ merge: { offset: shown.hits.length, limit: HITS } })
    : searchBody({ indices: [name], params: Object.assign(searchBody().params, { page: shown.page + 1 }), merge: undefined });
  if (name !== MERGED) {
    const own = body.perIndex[name];
    body.perIndex = own ? { [name]: own } : {};
  }
  const r = await fetch("/1/federated", { method: "POST", body: JSON.stringify(body), headers: headers() }).catch(() => null);
  if (!r || !r.ok || seq !== state.seq) {
    if (r && !r.ok) banner(refusal(r.status, await r.json().catch(() => ({}))));
    return setMore(name, true);
  }
  const doc = await r.json();
  const hits = name === MERGED ? (doc.merged && doc.merged.hits) || [] : ((doc.results || {})[name] || {}).hits || [];
  shown.hits = shown.hits.concat(hits);
  shown.page += 1;
  renderHits(name, hits, "", true);
  setMore(name, hits.length > 0 && shown.hits.length < shown.nbHits);
}

// ---- Facets and filters -----------------------------------------------------------------

function renderFacets() {
  const panels = [];
  const actions = { toggle, range: setRange };
  for (const name of state.indices) {
    for (const attr of state.facets[name] || []) {
      const stats = (state.stats[name] || {})[attr];
      const refined = (state.refinements[name] || {})[attr] || new Set();
      const counts = (state.counts[name] || {})[attr] || {};
      const values = Object.entries(counts).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, 10);
      // A refined value stays listed when its count falls to zero.
      for (const v of refined) if (!(v in counts)) values.push([v, 0]);
      panels.push(facetPanel(name, attr, {
        stats: stats && !refined.size ? stats : null, range: (state.ranges[name] || {})[attr], values, refined,
        exhaustive: state.exhaustive[name],
      }, actions));
    }
  }
  renderFacetPanels(panels);
}

function toggle(name, attr, value) {
  const refined = state.refinements[name];
  if (!refined[attr]) refined[attr] = new Set();
  if (refined[attr].has(value)) refined[attr].delete(value); else refined[attr].add(value);
  renderFacets();
  search();
}

function setRange(name, attr, min, max) {
  if (min == null && max == null) delete state.ranges[name][attr]; else state.ranges[name][attr] = { min, max };
  search();
}

function renderChips() {
  const chips = [];
  for (const name of state.indices) {
    for (const [attr, values] of Object.entries(state.refinements[name] || {})) {
      for (const v of values) chips.push({ index: name, attr, value: v, label: `${attr}: ${v}` });
    }
    for (const [attr, r] of Object.entries(state.ranges[name] || {})) {
      const label = r.min != null && r.max != null ? `${r.min} ≤ ${attr} ≤ ${r.max}` : r.min != null ? `${attr} ≥ ${r.min}` : `${attr} ≤ ${r.max}`;
      chips.push({ index: name, attr, range: true, label });
    }
  }
  $("open-filters").textContent = chips.length ? `Filters (${chips.length})` : "Filters";
  renderFilters(chips, (chip) => {
    if (chip.range) delete state.ranges[chip.index][chip.attr]; else state.refinements[chip.index][chip.attr].delete(chip.value);
    renderFacets();
    search();
  }, () => {
    for (const name of state.indices) { state.refinements[name] = {}; state.ranges[name] = {}; }
    renderFacets();
    search();
  });
}

// ---- Controls ---------------------------------------------------------------------------

$("q").addEventListener("input", (e) => {
  state.query = e.target.value;
  search();
});
$("search-form").addEventListener("submit", (e) => e.preventDefault());
document.addEventListener("keydown", (e) => {
  if (e.key === "/" && document.activeElement !== $("q") && !$("key-dialog").open) { e.preventDefault(); $("q").focus(); }
  if (e.key === "Escape" && !$("key-dialog").open && document.activeElement === $("q")) { $("q").value = ""; state.query = ""; search(); }
});
$("live").addEventListener("click", () => {
  state.live = !isLive();
  search();
});
$("open-filters").addEventListener("click", () => $("facets").classList.add("open"));
$("close-filters").addEventListener("click", () => $("facets").classList.remove("open"));
$("open-key").addEventListener("click", () => {
  $("key-input").value = apiKey();
  $("key-dialog").showModal();
});
$("key-cancel").addEventListener("click", () => $("key-dialog").close());
$("key-forget").addEventListener("click", () => {
  localStorage.removeItem(KEY_STORAGE);
  $("key-dialog").close();
  location.reload();
});
$("key-form").addEventListener("submit", () => {
  localStorage.setItem(KEY_STORAGE, $("key-input").value.trim());
  location.reload();
});
start();
