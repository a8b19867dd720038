// Rendering for the fedsearchd web dashboard: hits, columns, facet panels, filters and tabs,
// from the state dashboard.js keeps. Every box whose content changes keeps its size (see
// dashboard.css), so answers arriving, pages loading and facet clicks move nothing on the page.
"use strict";

const PRE = "__fs_mark__", POST = "__/fs_mark__";
// The merged list's column, beside one per index.
const MERGED = "__merged";
const TITLE_ATTRIBUTES = ["title", "name", "label", "headline", "subject"];
const MATCH_RANK = { full: 2, partial: 1, none: 0 };
const numberFormat = new Intl.NumberFormat("en-US");

const $ = (id) => document.getElementById(id);
const count = (n) => numberFormat.format(n || 0);

function escapeHTML(s) {
  return String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
}

// Highlighted text: everything escaped, the daemon's match markers turned into <mark>.
function marked(s) {
  return escapeHTML(s).split(PRE).join("<mark>").split(POST).join("</mark>");
}

// An attribute's value as text, highlighted where the daemon highlighted it.
function attributeText(hit, attribute) {
  const h = hit._highlightResult && hit._highlightResult[attribute];
  if (h) {
    if (Array.isArray(h)) return h.map((x) => (x && x.value != null ? marked(x.value) : "")).filter((t) => t).join(", ");
    if (h.value != null) return marked(h.value);
  }
  const v = hit[attribute];
  if (v == null) return "";
  return escapeHTML(Array.isArray(v) ? v.join(", ") : typeof v === "object" ? JSON.stringify(v) : v);
}

// How well an attribute matched the query (its best match level, arrays included).
function matchRank(hit, attribute) {
  const h = hit._highlightResult && hit._highlightResult[attribute];
  const levels = Array.isArray(h) ? h : h ? [h] : [];
  return Math.max(0, ...levels.map((x) => MATCH_RANK[(x && x.matchLevel) || "none"] || 0));
}

// The attributes a hit shows: a title-like one first when it has one, else its best
// highlighted attribute; then the others that matched, then the rest, never objectID.
function shownAttributes(hit) {
  const names = Object.keys(hit).filter((k) => k !== "objectID" && !k.startsWith("_"));
  const highlighted = Object.keys(hit._highlightResult || {});
  for (const h of highlighted) if (!names.includes(h)) names.push(h);
  const title = TITLE_ATTRIBUTES.find((a) => names.includes(a));
  const rest = names.filter((a) => a !== title)
    .map((a, i) => [a, matchRank(hit, a), highlighted.includes(a) ? 0 : 1, i])
    .sort((x, y) => y[1] - x[1] || x[2] - y[2] || x[3] - y[3]).map((x) => x[0]);
  return title ? [title, ...rest] : rest;
}

function hitHTML(hit, source) {
  const shown = shownAttributes(hit).filter((a) => attributeText(hit, a) !== "");
  const title = shown.length ? attributeText(hit, shown[0]) : escapeHTML(hit.objectID);
  const detail = shown.slice(1, 3).map((a) => attributeText(hit, a)).join(" · ");
  const from = source ? `<span class="from">${escapeHTML(source)}</span>` : "";
  return `<li class="hit" data-object-id="${escapeHTML(hit.objectID)}"><div class="title">${from}${title}</div>` +
    (detail ? `<div class="detail">${detail}</div>` : "") + "</li>";
}

function columnElement(name) { return document.getElementById("col-" + name); }

// A column: its header (name, state), a line for what its content answers, the hits, More.
function createColumn(name, title, onMore) {
  const col = document.createElement("section");
  col.className = "column" + (name === MERGED ? " merged" : "");
  col.id = "col-" + name;
  col.dataset.index = name;
  col.innerHTML = `<header><h2>${escapeHTML(title)}</h2><span class="status searching">waiting</span></header>` +
    `<p class="note"></p><ol class="hits"></ol><button class="tool more" type="button" disabled>More</button>`;
  col.querySelector(".more").addEventListener("click", onMore);
  return col;
}

function setStatus(name, text, kind) {
  const col = columnElement(name);
  if (!col) return;
  const s = col.querySelector(".status");
  s.textContent = text;
  s.className = "status " + kind;
}

// Marks a column's content as an older query's (dimmed, with the query it answered).
function setStale(name, answeredQuery, why) {
  const col = columnElement(name);
  if (!col) return;
  const stale = answeredQuery != null;
  col.classList.toggle("stale", stale);
  col.querySelector(".note").textContent = stale ? `${why}: showing results for ${quoted(answeredQuery)}` : "";
}

function quoted(q) { return q ? `'${q}'` : "an empty search"; }

function renderHits(name, hits, emptyText, append) {
  const col = columnElement(name);
  if (!col) return;
  const list = col.querySelector(".hits");
  const html = hits.map((hit) => hitHTML(hit, name === MERGED ? hit._index : null)).join("");
  if (append) { list.insertAdjacentHTML("beforeend", html); return; }
  list.innerHTML = hits.length ? html : `<li class="empty">${escapeHTML(emptyText)}</li>`;
  list.scrollTop = 0;
}

function renderError(name, text) {
  const col = columnElement(name);
  if (!col) return;
  col.querySelector(".hits").innerHTML = `<li class="empty">${escapeHTML(text)}</li>`;
}

function setMore(name, enabled) {
  const col = columnElement(name);
  if (col) col.querySelector(".more").disabled = !enabled;
}

// One facet panel: a list of values with counts (refined ones kept, count 0 when they no
// longer match), or for a numeric attribute a range control over its stats.
function facetPanel(index, attr, view, actions) {
  const box = document.createElement("div");
  box.dataset.index = index;
  box.dataset.attribute = attr;
  const title = `<h3>${escapeHTML(index)} · ${escapeHTML(attr)}</h3>`;
  if (view.stats) {
    box.className = "facet range";
    const range = view.range || {};
    box.innerHTML = title + `<div class="bounds"><input type="number" step="any" aria-label="${escapeHTML(attr)} from" ` +
      `placeholder="${escapeHTML(view.stats.min)}" value="${range.min ?? ""}"><span>–</span>` +
      `<input type="number" step="any" aria-label="${escapeHTML(attr)} to" placeholder="${escapeHTML(view.stats.max)}" ` +
      `value="${range.max ?? ""}"></div><p class="extent">from ${escapeHTML(view.stats.min)} to ${escapeHTML(view.stats.max)}</p>`;
    const [from, to] = box.querySelectorAll("input");
    const apply = () => actions.range(index, attr, from.value === "" ? null : Number(from.value), to.value === "" ? null : Number(to.value));
    for (const input of [from, to]) {
      input.addEventListener("change", apply);
      input.addEventListener("keydown", (e) => { if (e.key === "Enter") { e.preventDefault(); apply(); } });
    }
    return box;
  }
  box.className = "facet";
  box.innerHTML = title + `<ul></ul><p class="note">${view.exhaustive === false ? "counts are not exhaustive" : ""}</p>`;
  const ul = box.querySelector("ul");
  for (const [value, n] of view.values) {
    const li = document.createElement("li");
    const refined = view.refined.has(value);
    li.tabIndex = 0;
    li.dataset.key = index + "\u0000" + attr + "\u0000" + value;
    li.dataset.value = value;
    li.className = (refined ? "refined" : "") + (n === 0 ? " zero" : "");
    li.setAttribute("role", "checkbox");
    li.setAttribute("aria-checked", refined ? "true" : "false");
    li.innerHTML = `<span class="value">${escapeHTML(value)}</span><span class="count">${escapeHTML(count(n))}</span>`;
    li.addEventListener("click", () => actions.toggle(index, attr, value));
    li.addEventListener("keydown", (e) => {
      if (e.key === "Enter" || e.key === " ") { e.preventDefault(); actions.toggle(index, attr, value); }
    });
    ul.appendChild(li);
  }
  return box;
}

// The panels in order, focus kept on the value that had it.
function renderFacetPanels(panels) {
  const root = $("facet-panels");
  const focused = document.activeElement && document.activeElement.dataset ? document.activeElement.dataset.key : null;
  const scrolls = new Map([...root.querySelectorAll(".facet ul")].map((ul) => [ul.parentElement.dataset.index + "/" + ul.parentElement.dataset.attribute, ul.scrollTop]));
  root.replaceChildren(...panels);
  for (const ul of root.querySelectorAll(".facet ul")) {
    const top = scrolls.get(ul.parentElement.dataset.index + "/" + ul.parentElement.dataset.attribute);
    if (top) ul.scrollTop = top;
  }
  if (focused) {
    const again = [...root.querySelectorAll("li")].find((li) => li.dataset.key === focused);
    if (again) again.focus();
  }
}

function renderFilters(chips, onRemove, onClear) {
  const bar = $("filters");
  bar.innerHTML = "";
  if (!chips.length) { bar.innerHTML = `<span class="none">No filters</span>`; return; }
  for (const chip of chips) {
    const b = document.createElement("button");
    b.className = "chip";
    b.type = "button";
    b.textContent = `${chip.index} · ${chip.label} ×`;
    b.addEventListener("click", () => onRemove(chip));
    bar.appendChild(b);
  }
  const clear = document.createElement("button");
  clear.className = "chip clear";
  clear.type = "button";
  clear.textContent = "Clear all";
  clear.addEventListener("click", onClear);
  bar.appendChild(clear);
}

// The phone layout's tab strip: one tab per column, with its hit count.
function renderTabs(names, current, counts, onSelect) {
  const strip = $("tabs");
  strip.innerHTML = "";
  strip.setAttribute("role", "tablist");
  for (const name of names) {
    const tab = document.createElement("button");
    tab.type = "button";
    tab.className = "tab";
    tab.setAttribute("role", "tab");
    tab.dataset.index = name;
    tab.setAttribute("aria-selected", name === current ? "true" : "false");
    const n = counts[name];
    tab.innerHTML = `${escapeHTML(name === MERGED ? "all" : name)}<span class="n">${n == null ? "…" : escapeHTML(count(n))}</span>`;
    tab.addEventListener("click", () => onSelect(name));
    strip.appendChild(tab);
  }
  for (const col of document.querySelectorAll(".column")) col.classList.toggle("shown", col.dataset.index === current);
}
