// The fedsearchd web dashboard: one search box, a column per index filled in as its answer
// streams in (POST /1/federated/stream), the merged list, facet panels with disjunctive
// refinement per index, the current filters, and each source's state and time.
"use strict";

const HITS_PER_COLUMN = 8;
const PRE = "__fs_mark__", POST = "__/fs_mark__";
const SLOW_MS = 100;
const urlParams = new URLSearchParams(location.search);
// An API key for a daemon with http.keys: open the dashboard as /?key=...
const apiKey = urlParams.get("key");
const auth = apiKey ? "?x-algolia-api-key=" + encodeURIComponent(apiKey) : "";

const state = {
  indices: [],            // names, in the daemon's order
  settings: {},           // name -> {facets: [attr], shown: [attr]}
  refinements: {},        // name -> attr -> Set(values)
  facetCounts: {},        // name -> attr -> {value: count} (the latest answer's)
  results: {},            // name -> latest results
  query: "",
  seq: 0,
  session: "dash-" + Math.random().toString(36).slice(2),
  controller: null,
};

const $ = (id) => document.getElementById(id);

function escapeHTML(s) {
  return String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
}

// Highlighted text: everything escaped, the daemon's match markers turned into <mark>.
function marked(s) {
  return escapeHTML(s).split(PRE).join("<mark>").split(POST).join("</mark>");
}

function banner(text) {
  const b = $("banner");
  b.textContent = text || "";
  b.hidden = !text;
}

async function getJSON(path) {
  const r = await fetch(path + auth);
  if (!r.ok) throw new Error((await r.json().catch(() => ({}))).message || r.statusText);
  return r.json();
}

// Attribute names from settings entries such as "unordered(extract)" or "searchable(brand)".
function attributeName(entry) {
  const m = /^\w+\((.*)\)$/.exec(entry);
  return m ? m[1] : entry;
}

async function start() {
  try {
    const list = await getJSON("/1/indexes");
    state.indices = list.items.map((i) => i.name);
  } catch (e) {
    banner("The daemon is not answering here (" + e.message + "). Start it with: make run");
    return;
  }
  await Promise.all(state.indices.map(async (name) => {
    let s = {};
    try { s = await getJSON("/1/indexes/" + encodeURIComponent(name) + "/settings"); } catch (e) { /* a backend without settings */ }
    const facets = (s.attributesForFaceting || []).filter((a) => !a.startsWith("filterOnly(")).map(attributeName);
    const shown = (s.searchableAttributes || []).map(attributeName);
    state.settings[name] = { facets, shown };
    state.refinements[name] = {};
  }));
  buildColumns();
  search();
}

function buildColumns() {
  const columns = $("columns");
  columns.innerHTML = "";
  const names = [["__merged", "All indices (merged)"]].concat(state.indices.map((n) => [n, n]));
  for (const [id, title] of names) {
    const col = document.createElement("section");
    col.className = "column" + (id === "__merged" ? " merged" : "");
    col.id = "col-" + id;
    col.dataset.index = id;
    col.innerHTML = `<header><h2>${escapeHTML(title)}</h2><span class="status waiting">waiting</span></header><ol class="hits"></ol>`;
    columns.appendChild(col);
  }
}

function column(name) { return document.getElementById("col-" + name); }

function setStatus(name, text, kind) {
  const col = column(name);
  if (!col) return;
  const s = col.querySelector(".status");
  s.textContent = text;
  s.className = "status " + kind;
}

// The request: one query to every index, each with its own facets and refinements.
function request() {
  const perIndex = {};
  for (const name of state.indices) {
    const refined = state.refinements[name];
    const facetFilters = [];
    for (const [attr, values] of Object.entries(refined)) {
      if (values.size) facetFilters.push([...values].map((v) => attr + ":" + v));
    }
    perIndex[name] = {
      facets: state.settings[name].facets,
      disjunctiveFacets: Object.keys(refined).filter((a) => refined[a].size),
      facetFilters,
    };
  }
  return {
    id: state.seq, query: state.query, indices: state.indices, session: state.session, seq: state.seq,
    params: { hitsPerPage: HITS_PER_COLUMN, highlightPreTag: PRE, highlightPostTag: POST, maxValuesPerFacet: 10 },
    perIndex,
    merge: { limit: HITS_PER_COLUMN },
  };
}

async function search() {
  state.seq += 1;
  const seq = state.seq;
  if (state.controller) state.controller.abort();
  const controller = new AbortController();
  state.controller = controller;
  for (const name of ["__merged", ...state.indices]) setStatus(name, "searching…", "waiting");
  renderFilters();
  let response;
  try {
    response = await fetch("/1/federated/stream" + auth, {
      method: "POST", body: JSON.stringify(request()), signal: controller.signal,
      headers: { "Content-Type": "text/plain" },
    });
  } catch (e) {
    if (e.name !== "AbortError") banner("The daemon is not answering here (" + e.message + "). Start it with: make run");
    return;
  }
  if (!response.ok) {
    const body = await response.json().catch(() => ({}));
    banner("The search was refused: " + (body.message || response.statusText));
    return;
  }
  banner("");
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let pending = "";
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      pending += decoder.decode(value, { stream: true });
      let end;
      while ((end = pending.indexOf("\n\n")) >= 0) {
        const event = pending.slice(0, end);
        pending = pending.slice(end + 2);
        for (const line of event.split("\n")) {
          if (line.startsWith("data: ") && seq === state.seq) handle(JSON.parse(line.slice(6)));
        }
      }
    }
  } catch (e) {
    if (e.name !== "AbortError") banner("The answer stream broke off: " + e.message);
  }
}

function handle(frame) {
  switch (frame.type) {
    case "results":
      state.results[frame.index] = frame.results;
      state.facetCounts[frame.index] = frame.results.facets || {};
      renderHits(frame.index, frame.results.hits, frame.results.nbHits);
      setStatus(frame.index, frame.results.nbHits + " hits", "ok");
      renderFacets();
      break;
    case "error":
      if (frame.index) {
        delete state.results[frame.index];
        const kind = frame.error.code === "timeout" ? "timeout" : frame.error.code === "suspended" ? "skipped" : "error";
        setStatus(frame.index, kind, kind);
        emptyColumn(frame.index, frame.index + ": " + frame.error.message);
      } else {
        banner(frame.error.message);
      }
      break;
    case "merged":
      renderHits("__merged", frame.hits, frame.nbHits);
      setStatus("__merged", frame.nbHits + " hits in all", "ok");
      break;
    case "done":
      finish(frame);
      break;
  }
}

function finish(done) {
  if (done.status === "superseded") return;
  let total = 0;
  for (const [name, report] of Object.entries(done.sources || {})) {
    const ms = report.ms != null ? report.ms.toFixed(1) + " ms" : "";
    if (report.status === "ok") {
      total += report.nbHits || 0;
      setStatus(name, `${report.nbHits} hits · ${ms}`, report.ms >= SLOW_MS ? "slow" : "ok");
      if (!report.nbHits) emptyColumn(name, noResults(name));
    } else {
      setStatus(name, `${report.status} · ${ms}`, report.status === "skipped" ? "skipped" : report.status === "timeout" ? "timeout" : "error");
    }
  }
  $("summary").textContent = `${total} hits · ${done.status} · ${done.ms.toFixed(1)} ms`;
}

// "no results for 'xyz' in movies; 2 results in products".
function noResults(name) {
  const others = state.indices.filter((n) => n !== name && state.results[n] && state.results[n].nbHits > 0)
    .map((n) => `${state.results[n].nbHits} in ${n}`);
  const q = state.query ? `'${state.query}'` : "this search";
  return `No results for ${q} in ${name}` + (others.length ? `; ${others.join(", ")}.` : ".");
}

function emptyColumn(name, text) {
  const col = column(name);
  if (!col) return;
  col.querySelector(".hits").innerHTML = `<li class="empty">${escapeHTML(text)}</li>`;
}

// A hit's text for `attribute`: its highlighted value where the daemon highlighted it.
function text(hit, attribute) {
  const h = hit._highlightResult && hit._highlightResult[attribute];
  if (h) {
    if (Array.isArray(h)) return h.map((x) => marked(x.value)).join(", ");
    if (h.value != null) return marked(h.value);
  }
  const v = hit[attribute];
  if (v == null) return "";
  return escapeHTML(Array.isArray(v) ? v.join(", ") : typeof v === "object" ? JSON.stringify(v) : v);
}

function renderHits(name, hits, nbHits) {
  const col = column(name);
  if (!col) return;
  const list = col.querySelector(".hits");
  if (!hits.length) {
    list.innerHTML = `<li class="empty">${escapeHTML(name === "__merged" ? "No results in any index." : noResults(name))}</li>`;
    return;
  }
  list.innerHTML = hits.map((hit) => {
    const index = hit._index || name;
    const shown = (state.settings[index] || { shown: [] }).shown.filter((a) => hit[a] != null);
    const title = shown.length ? text(hit, shown[0]) : escapeHTML(hit.objectID);
    const detail = shown.slice(1, 3).map((a) => text(hit, a)).filter((t) => t).join(" · ");
    const from = name === "__merged" ? `<span class="from">${escapeHTML(index)}</span>` : "";
    return `<li class="hit" data-object-id="${escapeHTML(hit.objectID)}"><div class="title">${from}${title}</div>` +
      (detail ? `<div class="detail">${detail}</div>` : "") + "</li>";
  }).join("");
}

function renderFacets() {
  const panel = $("facets");
  const focused = document.activeElement && document.activeElement.dataset ? document.activeElement.dataset.key : null;
  panel.innerHTML = "";
  for (const name of state.indices) {
    for (const attr of state.settings[name].facets) {
      const counts = (state.facetCounts[name] || {})[attr] || {};
      const refined = state.refinements[name][attr] || new Set();
      const entries = Object.entries(counts).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, 10);
      // A refined value stays listed when its count falls to zero.
      for (const v of refined) if (!(v in counts)) entries.push([v, 0]);
      if (!entries.length) continue;
      const box = document.createElement("div");
      box.className = "facet";
      box.dataset.index = name;
      box.dataset.attribute = attr;
      box.innerHTML = `<h3>${escapeHTML(name)} · ${escapeHTML(attr)}</h3><ul></ul>`;
      const ul = box.querySelector("ul");
      for (const [value, count] of entries) {
        const li = document.createElement("li");
        li.tabIndex = 0;
        li.dataset.key = name + "\u0000" + attr + "\u0000" + value;
        li.dataset.value = value;
        li.className = (refined.has(value) ? "refined" : "") + (count === 0 ? " zero" : "");
        li.setAttribute("role", "checkbox");
        li.setAttribute("aria-checked", refined.has(value) ? "true" : "false");
        li.innerHTML = `<span class="value">${escapeHTML(value)}</span><span class="count">${escapeHTML(count)}</span>`;
        li.addEventListener("click", () => toggle(name, attr, value));
        li.addEventListener("keydown", (e) => {
          if (e.key === "Enter" || e.key === " ") { e.preventDefault(); toggle(name, attr, value); }
        });
        ul.appendChild(li);
      }
      const results = state.results[name];
      if (results && results.exhaustiveNbHits === false) {
        box.insertAdjacentHTML("beforeend", `<p class="note">counts are not exhaustive</p>`);
      }
      panel.appendChild(box);
    }
  }
  if (focused) {
    const again = [...panel.querySelectorAll("li")].find((li) => li.dataset.key === focused);
    if (again) again.focus();
  }
}

function toggle(name, attr, value) {
  const refined = state.refinements[name];
  if (!refined[attr]) refined[attr] = new Set();
  if (refined[attr].has(value)) refined[attr].delete(value); else refined[attr].add(value);
  search();
}

function renderFilters() {
  const bar = $("filters");
  const chips = [];
  for (const name of state.indices) {
    for (const [attr, values] of Object.entries(state.refinements[name] || {})) {
      for (const v of values) chips.push([name, attr, v]);
    }
  }
  bar.hidden = chips.length === 0;
  bar.innerHTML = "";
  for (const [name, attr, v] of chips) {
    const b = document.createElement("button");
    b.className = "chip";
    b.textContent = `${name} · ${attr}: ${v} ×`;
    b.addEventListener("click", () => toggle(name, attr, v));
    bar.appendChild(b);
  }
  if (chips.length) {
    const clear = document.createElement("button");
    clear.className = "chip clear";
    clear.textContent = "Clear all";
    clear.addEventListener("click", () => {
      for (const name of state.indices) state.refinements[name] = {};
      search();
    });
    bar.appendChild(clear);
  }
}

$("q").addEventListener("input", (e) => {
  state.query = e.target.value;
  search();
});
$("search-form").addEventListener("submit", (e) => e.preventDefault());
document.addEventListener("keydown", (e) => {
  if (e.key === "/" && document.activeElement !== $("q")) { e.preventDefault(); $("q").focus(); }
  if (e.key === "Escape") { $("q").value = ""; state.query = ""; search(); }
});
start();
