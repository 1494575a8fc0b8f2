// @mem playground: plain ES module, no bundler. Talks to the demo-agent HTTP API (/v1/*).
import cytoscape from '/vendor/cytoscape.esm.min.mjs';
// The plain words of every term: one source, shared with the mem CLI (`mem ask`).
import { GATE_ACTIONS, GLOSSARY, offlineAnswerWords, ROUTED_NOOP_UPDATE, STOP_REASONS, THETA_ACT } from '/wording.js';

const TYPE_COLORS = { episodic: '#4c8bf5', semantic: '#34a853', procedural: '#f4a300', preference: '#e8467c' };
const VIEW_COLORS = { semantic: '#2f6fed', temporal: '#00a3a3', causal: '#e0452b', entity: '#8a8f99' };

const $ = (id) => document.getElementById(id);
const esc = (s) => String(s ?? '').replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch]);
const f = (n, d = 3) => (typeof n === 'number' && Number.isFinite(n) ? n.toFixed(d) : '–');
const short = (t, n) => (t.length > n ? `${t.slice(0, n - 1)}…` : t);

/** A term with its plain-language label and the tooltip that explains it. */
function term(key) {
  const [label, tip] = GLOSSARY[key];
  return `<span class="term" data-term="${key}" title="${esc(tip)}">${esc(label)}</span>`;
}

// Optional bearer token: open the page as /#token=… once; kept for this tab only.
const hashToken = new URLSearchParams(location.hash.slice(1)).get('token');
if (hashToken) { sessionStorage.setItem('mem-token', hashToken); history.replaceState(null, '', location.pathname + location.search); }
const token = sessionStorage.getItem('mem-token');
// Scope: ?userId=…&agentId=…&runId=…&namespace=… on the page URL is passed to every API call.
const scopeParams = new URLSearchParams([...new URLSearchParams(location.search)].filter(([k]) => ['userId', 'agentId', 'runId', 'namespace'].includes(k)));

async function api(path, { method = 'GET', body } = {}) {
  const sep = path.includes('?') ? '&' : '?';
  const url = scopeParams.toString() ? `${path}${sep}${scopeParams}` : path;
  const res = await fetch(url, {
    method,
    headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const data = await res.json().catch(() => ({ error: { code: 'BAD_RESPONSE', message: `HTTP ${res.status}` } }));
  if (!res.ok) throw Object.assign(new Error(data?.error?.message ?? `HTTP ${res.status}`), { code: data?.error?.code });
  return data;
}

function status(text, isError = false) {
  const el = $('status');
  el.textContent = text;
  el.className = isError ? 'error' : '';
}

function busy(on) {
  for (const id of ['tell', 'ask', 'load-sample', 'empty-load-sample']) $(id).disabled = on;
}

// ---------- chat ----------
function addMessage(kind, html) {
  const li = document.createElement('li');
  li.className = kind;
  li.innerHTML = html;
  $('messages').append(li);
  li.scrollIntoView({ block: 'end' });
  return li;
}

function observationFromForm(text) {
  const obs = { text, speaker: $('speaker').value.trim() || 'Me' };
  const at = $('observed-at').value;
  if (at) obs.observedAt = new Date(at).toISOString();
  return obs;
}

async function tell(text) {
  const obs = observationFromForm(text);
  addMessage('user', `<span class="who">${esc(obs.speaker)}</span>${esc(text)}`);
  const res = await api('/v1/observations', { method: 'POST', body: { observations: [obs] } });
  const a = res.added[0];
  addMessage('system', `stored as ${esc(a.node.id.slice(0, 10))}… · gate <span class="badge ${a.gate?.action ?? 'add'}">${esc(a.gate?.action ?? (a.created ? 'add' : 'duplicate'))}</span>`);
  renderGate(res.added);
  lastWritten = res.added.map((x) => x.node.id);
}

async function ask(text) {
  const obs = observationFromForm(text);
  addMessage('user', `<span class="who">${esc(obs.speaker)} asks</span>${esc(text)}`);
  const r = await api('/v1/ask', { method: 'POST', body: { question: text, k: 5 } });
  showAnswer(r);
  if ($('remember-questions').checked) {
    const res = await api('/v1/observations', { method: 'POST', body: { observations: [obs] } });
    renderGate(res.added);
  }
}

/** The answer, its evidence and its trace; the graph then shows that evidence. */
function showAnswer(r) {
  const label = r.mode === 'llm'
    ? `<span class="label llm">System Two · ${esc(r.model)}</span>`
    : `<span class="label evidence" title="${r.answerRank === null ? 'No LLM is configured, and no memory answers this question: none is quoted' : `No LLM is configured: the answer is evidence #${r.answerRank ?? 1} below, exactly as ranked`}">${esc(offlineAnswerWords(r.answerRank))}</span>`;
  const items = r.evidence
    .map((e, i) => `<li data-node="${esc(e.id)}" title="click: show it in the graph">${r.answerRank !== null && i === (r.answerRank ?? 1) - 1 && r.mode !== 'llm' ? '<span class="answer-mark">answer</span> ' : ''}${e.sourceId ? `<b>${esc(e.sourceId)}</b> ` : ''}${esc(e.speaker ?? '')}${e.speaker ? ': ' : ''}${esc(short(e.text, 120))} <span class="score">(${esc(e.observedAt.slice(0, 10))} · score ${f(e.score, 2)}${e.via.length ? ` · via ${esc(e.via.join('→'))}` : ''})</span></li>`)
    .join('');
  const li = addMessage('agent', `<span class="who">agent</span>${label}<span class="answer" data-testid="answer">${esc(r.answer)}</span><ol class="evidence-list" data-testid="evidence">${items}</ol>`);
  li.querySelectorAll('[data-node]').forEach((el) => el.addEventListener('click', () => focusNode(el.dataset.node)));
  renderTrace(r);
  lastEvidence = r.evidence.map((e) => e.id);
  lastQuestion = r.question;
  graphMode = 'focus';
}

/**
 * On load: the last write and the last question this server saw in the page's scope (GET /v1/last),
 * so a page opened after `mem`/API calls (or reloaded) shows them instead of "No question yet".
 */
async function restoreLast() {
  const last = await api('/v1/last');
  if (last.write?.added?.length) {
    lastAdded = last.write.added.map((a) => ({ node: { id: a.id, text: a.text }, gate: a.gate, created: a.created }));
    lastWritten = lastAdded.map((a) => a.node.id);
  }
  if (last.query?.question && Array.isArray(last.query.evidence)) {
    addMessage('system', `last question, asked ${esc(new Date(last.query.at).toLocaleString())}:`);
    addMessage('user', `<span class="who">asked</span>${esc(last.query.question)}`);
    showAnswer(last.query);
  }
}

// ---------- sample ----------
async function loadSample() {
  const sample = await (await fetch('/sample-conversation.json')).json();
  const observations = sample.sessions.flatMap((s) =>
    s.turns.map((t, i) => ({ text: t.text, speaker: t.speaker, sourceId: t.id, observedAt: new Date(Date.parse(s.date) + i * 30_000).toISOString(), metadata: { session: s.id } })),
  );
  const all = [];
  for (let i = 0; i < observations.length; i += 12) {
    status(`ingesting sample… ${i}/${observations.length}`);
    const res = await api('/v1/observations', { method: 'POST', body: { observations: observations.slice(i, i + 12) } });
    all.push(...res.added);
  }
  addMessage('system', `loaded "${esc(sample.title)}": ${all.length} turns from ${sample.sessions.length} sessions. Try: ${sample.questions.slice(0, 3).map((q) => `“${esc(q.question)}”`).join(' ')}`);
  renderGate(all);
  lastWritten = all.map((a) => a.node.id);
}

// ---------- gate panel ----------
function gateMeter(g) {
  const max = Math.max(0.5, g.novelty * 1.15, g.threshold * 1.5);
  const pct = (v) => `${Math.min(100, Math.max(0, (v / max) * 100)).toFixed(1)}%`;
  return `<div class="meter" title="novelty ν (bar) vs adaptive threshold τ (mark)">
    <div class="fill" style="width:${pct(g.novelty)};background:var(--${g.action})"></div>
    <div class="mark" style="left:${pct(g.threshold)}"></div></div>`;
}

function nearestText(nearest) {
  const n = nodesById.get(nearest.id);
  const name = n ? `${n.sourceId ? `${n.sourceId} ` : ''}“${short(n.text, 60)}”` : `${nearest.id.slice(0, 10)}…`;
  return `${esc(name)} (cos ${f(nearest.cosine, 3)})`;
}

function renderGate(added) {
  const el = $('gate');
  if (!added?.length) return;
  lastAdded = added;
  const counts = { add: 0, update: 0, noop: 0 };
  for (const a of added) if (a.gate) counts[a.gate.action] += 1;
  const shown = added.slice(-4).reverse();
  const items = shown
    .map((a) => {
      const g = a.gate;
      if (!g) return `<div class="gate-item"><span class="badge add">${a.created ? 'add' : 'duplicate'}</span> <span class="gate-text">${esc(short(a.node.text, 90))}</span> <span class="empty">(first memory of the scope: no score)</span></div>`;
      const routedNoop = g.routed === 'noop';
      const rel = routedNoop ? '< τ (gate: noop; a changed value makes it an update)' : g.action === 'add' ? '≥ τ + δ' : g.action === 'update' ? 'in [τ, τ + δ)' : '< τ';
      return `<div class="gate-item" data-testid="gate-item">
        <span class="badge ${g.action}" title="${esc(routedNoop ? ROUTED_NOOP_UPDATE : GATE_ACTIONS[g.action])}">${g.action}</span> <span class="term" data-term="novelty" title="${esc(GLOSSARY.novelty[1])}">novelty ν</span> = <b>${f(g.novelty)}</b> ${rel}, <span class="term" data-term="threshold" title="${esc(GLOSSARY.threshold[1])}">threshold τ</span> = <b>${f(g.threshold)}</b>
        ${gateMeter(g)}
        <div class="gate-text">“${esc(short(a.node.text, 110))}”</div>
        <dl class="kv"><dt>${term('score')}</dt><dd>${f(g.score)}</dd><dt>${term('kappa')}</dt><dd>${f(g.kappa, 1)}</dd><dt>${term('density')}</dt><dd>${f(g.density, 3)}</dd>
        <dt>${term('nearest')}</dt><dd>${g.nearest ? nearestText(g.nearest) : '–'}</dd></dl></div>`;
    })
    .join('');
  el.innerHTML = `${added.length > 1 ? `<p>${added.length} observations: <span class="badge add">add ${counts.add}</span> <span class="badge update">update ${counts.update}</span> <span class="badge noop">noop ${counts.noop}</span> · latest first:</p>` : ''}${items}`;
}

// ---------- trace panel ----------
function probRow(key, p, markAt, color) {
  const active = markAt !== undefined && p >= markAt;
  return `<div class="prob"><span>${term(key)}${active ? ' ✓' : ''}</span><div class="meter"><div class="fill" style="width:${(p * 100).toFixed(1)}%;background:${color ?? '#6b7480'}"></div>${markAt !== undefined ? `<div class="mark" style="left:${markAt * 100}%" title="${esc(GLOSSARY.thetaAct[1])}"></div>` : ''}</div><span>${f(p, 2)}</span></div>`;
}

function renderTrace(r) {
  const t = r.trace;
  const el = $('trace');
  if (!t.routing) {
    el.innerHTML = `<p><b>${esc(t.retriever ?? 'flat')}</b> retriever: a flat top-k search, no links followed. ${f(r.ms, 0)} ms.</p>`;
    return;
  }
  const views = ['semantic', 'temporal', 'causal', 'entity'];
  const routing = views.map((v) => probRow(v, t.routing[v] ?? 0, THETA_ACT, VIEW_COLORS[v])).join('')
    + probRow('multiHop', t.routing.multiHopNeed ?? 0)
    + probRow('recency', t.routing.recencyImportance ?? 0);
  const budgets = t.budgets
    ? `<table><tr><th>kind of link</th><th>${term('given')}</th><th>${term('spent')}</th></tr>${Object.keys(t.budgets.given).map((v) => `<tr><td><span class="bar-line" style="background:${VIEW_COLORS[v]}"></span>${GLOSSARY[v] ? term(v) : esc(v)}${t.activeViews.includes(v) ? '' : ' <span class="empty" title="probability below θ_act: not followed (a temporal budget may still add memories of the same conversation)">(not followed)</span>'}</td><td>${t.budgets.given[v]}</td><td>${t.budgets.spent[v] ?? 0}</td></tr>`).join('')}</table>`
    : '<p class="empty">no budgets</p>';
  const rounds = t.rounds.length
    ? `<table><tr><th>${term('step')}</th><th>${term('frontier')}</th><th>${term('admitted')}</th><th>${term('edges')}</th><th>${term('sufficient')}</th><th>${term('useful')}</th><th>${term('missing')}</th><th>${term('contradiction')}</th><th>${term('stop')}</th></tr>${t.rounds
        .map((x) => `<tr><td>${x.depth}</td><td>${x.frontier}</td><td>${Object.entries(x.admitted).filter(([, n]) => n).map(([v, n]) => `${esc(v)} ${n}`).join(', ') || '0'}</td><td>${x.edgesExamined}</td>${x.stopping ? [x.stopping.sufficient, x.stopping.continueUseful, x.stopping.missing, x.stopping.contradiction].map((v) => `<td>${f(v, 2)}</td>`).join('') : '<td>–</td><td>–</td><td>–</td><td>–</td>'}<td>${x.reason ? `<span title="${esc(STOP_REASONS[x.reason] ?? x.reason)}">${esc(STOP_REASONS[x.reason] ?? x.reason)}</span>` : ''}</td></tr>`)
        .join('')}</table>`
    : '<p class="empty">no steps: the first matches were enough</p>';
  const reason = t.stopReason ?? '–';
  el.innerHTML = `<p class="q">“${esc(short(r.question, 100))}”</p>
    <p class="summary">${term('stop')}: <span class="stop" data-testid="stop-reason" data-reason="${esc(reason)}" title="${esc(reason)}">${esc(STOP_REASONS[reason] ?? reason)}</span> · ${t.rounds.length} step(s) · ${term('controllerCalls')} ${t.controllerCalls ?? '–'} · ${term('nodesVisited')} ${t.nodesVisited ?? '–'} · ${f(r.ms, 0)} ms</p>
    <div class="cols">
      <div><div class="section-title">${term('routing')} <small>(mark: ${term('thetaAct')} = ${THETA_ACT})</small></div>${routing}</div>
      <div><div class="section-title">${term('budgets')} <small>(${term('depth')} = ${t.depth ?? '–'})</small></div>${budgets}</div>
    </div>
    <div class="section-title">${term('rounds')}</div>${rounds}`;
}

// ---------- graph ----------
// Two modes. 'focus' (default): the last question's evidence as a ranked column (#1 on top) and, to
// its right, the memories most strongly linked to each item, in a fixed (computed, not simulated)
// layout, so the same answer always looks the same and later writes do not move it; before any
// question, the latest write stands in for the evidence.
// 'all': the whole graph grouped by session (episode): one box per session, its memories in time
// order; it starts with the scope's last session, "show more" adds the session before. Labels keep
// one on-screen size at every zoom; where two would overlap, the less relevant one (relevance:
// evidence rank, then links shown, then gate add/update, then newer) is left unlabelled.
let cy;
// Temporal links (before / same conversation / same time) outnumber the others by far: hidden until asked for.
const hiddenViews = new Set(['temporal']);
const nodesById = new Map();
let lastAdded = null;
let lastEvidence = [];
let lastWritten = [];
let lastQuestion = null;
let graphMode = 'focus';
let graphData = { nodes: [], edges: [] };
let sessionsShown = 1;
// whole graph, in on-screen pixels (labels keep one size at every zoom)
const COLUMN_PX = 240; // between session columns
const LABEL_PX = 190; // longest label
const WHOLE_ROW = 24; // model units between memories of one session
let wholeZoom = 1; // the zoom the whole graph opens at: the longest session fits the panel's height
const NEIGHBOURS_PER_NODE = 2;
const MAX_FOCUS_NEIGHBOURS = 10;
const ROW = 30; // px between rows of the focus layout

function initGraph() {
  $('legend').innerHTML = Object.entries(TYPE_COLORS).map(([k, c]) => `<span><span class="dot" style="background:${c}"></span>${k}</span>`).join('') + '<span title="noop: already known when stored"><span class="dot" style="background:#fff;border:1.5px dashed #555"></span>noop</span><span title="evidence of the last question (number = rank)"><span class="dot" style="background:#fff;border:2.5px solid #f4b400"></span>evidence</span>';
  $('views').innerHTML = 'links: ' + Object.entries(VIEW_COLORS).map(([v, c]) => `<label title="${esc(GLOSSARY[v][1])}"><input type="checkbox" data-view="${v}" ${hiddenViews.has(v) ? '' : 'checked'} /> <span class="bar-line" style="background:${c}"></span>${v} (${esc(GLOSSARY[v][0])}) <span id="count-${v}"></span></label>`).join('');
  $('views').querySelectorAll('input').forEach((box) => box.addEventListener('change', () => {
    if (box.checked) hiddenViews.delete(box.dataset.view); else hiddenViews.add(box.dataset.view);
    drawGraph();
  }));
  cy = cytoscape({
    container: $('cy'),
    minZoom: 0.2,
    maxZoom: 3,
    style: [
      { selector: 'node', style: { 'background-color': 'data(color)', label: 'data(label)', 'font-size': 12, color: '#1d2430', width: 16, height: 16, 'text-valign': 'bottom', 'text-margin-y': 3, 'text-wrap': 'wrap', 'text-max-width': 150, 'text-background-color': '#fbfbfc', 'text-background-opacity': 0.85, 'text-background-padding': 1, 'min-zoomed-font-size': 7 } },
      { selector: 'node.whole', style: { 'font-size': () => 11 / cy.zoom(), width: 10, height: 10, 'text-valign': 'center', 'text-halign': 'right', 'text-margin-x': () => 4 / cy.zoom(), 'text-margin-y': 0, 'text-wrap': 'ellipsis', 'text-max-width': () => LABEL_PX / cy.zoom(), 'min-zoomed-font-size': 0 } },
      { selector: 'node.group', style: { 'background-color': '#eef2fa', 'background-opacity': 0.6, 'border-width': 1, 'border-color': '#c5cfe0', shape: 'round-rectangle', padding: 12, 'compound-sizing-wrt-labels': 'exclude', label: 'data(label)', 'font-size': () => 12 / cy.zoom(), 'font-weight': 600, color: '#4a5260', 'text-valign': 'top', 'text-halign': 'center', 'text-margin-y': () => -4 / cy.zoom(), 'text-wrap': 'none', 'min-zoomed-font-size': 0, 'text-background-opacity': 0 } },
      { selector: 'node.centre, node.linked', style: { 'text-valign': 'center', 'text-halign': 'right', 'text-margin-x': 6, 'text-margin-y': 0, 'text-wrap': 'none' } },
      { selector: 'node.linked', style: { 'font-size': 11, color: '#4a5260', width: 12, height: 12 } },
      { selector: 'node[gate = "noop"]', style: { 'border-width': 1.5, 'border-style': 'dashed', 'border-color': '#444' } },
      { selector: 'node.evidence', style: { 'border-width': 3, 'border-color': '#f4b400', 'border-style': 'solid', width: 22, height: 22, 'font-weight': 600 } },
      { selector: 'node:selected, node.focus', style: { width: 26, height: 26, 'border-width': 3, 'border-color': '#1d2430', 'border-style': 'solid' } },
      { selector: 'edge', style: { width: 'data(width)', 'line-color': 'data(color)', opacity: 0.6, 'curve-style': 'bezier', 'control-point-step-size': 24, 'target-arrow-shape': 'data(arrow)', 'target-arrow-color': 'data(color)', 'arrow-scale': 0.7 } },
      // last: an unlabelled memory or session box (pickLabels) stays unlabelled whatever else matches
      { selector: 'node.whole.quiet, node.group.quiet', style: { label: '' } },
    ],
  });
  cy.on('tap', 'node', (e) => showNode(e.target.data()));
  cy.on('tap', (e) => { if (e.target === cy) $('node-info').hidden = true; });
  $('graph-mode').addEventListener('click', () => {
    graphMode = graphMode === 'all' ? 'focus' : 'all';
    drawGraph();
  });
  $('show-more').addEventListener('click', () => {
    sessionsShown += 1;
    drawGraph();
  });
  // labels keep their on-screen size: restyle and re-pick them when the zoom settles
  let settle = null;
  cy.on('zoom', () => {
    if (graphMode !== 'all') return;
    clearTimeout(settle);
    settle = setTimeout(() => {
      cy.style().update();
      pickLabels();
    }, 60);
  });
}

function showNode(d) {
  const box = $('node-info');
  box.hidden = false;
  box.innerHTML = `<b>${esc(d.sourceId ?? d.id.slice(0, 10))}</b> · ${esc(d.type)}${d.gate ? ` · <span class="badge ${d.gate}">${d.gate}</span>` : ''}<br>${esc(d.observedAt.slice(0, 16).replace('T', ' '))} · ${esc(d.speaker ?? '')}<br>${esc(d.text)}`;
}

function focusNode(id) {
  if (!cy.getElementById(id).length) {
    graphMode = 'all';
    drawGraph();
  }
  const n = cy.getElementById(id);
  if (!n.length) return;
  cy.nodes().removeClass('focus');
  n.addClass('focus');
  // the picture stays put: pan (never zoom) only when the node is outside the visible part
  const ext = cy.extent();
  const p = n.position();
  if (p.x < ext.x1 || p.x > ext.x2 || p.y < ext.y1 || p.y > ext.y2) cy.animate({ center: { eles: n }, duration: 200 });
  showNode(n.data());
}

const visibleEdges = () => graphData.edges.filter((e) => !hiddenViews.has(e.view));

/** The focus set: { centre ids in rank order, neighbour ids }. */
function focusSet() {
  const known = new Set(graphData.nodes.map((n) => n.id));
  const centre = (lastEvidence.length ? lastEvidence : lastWritten.slice(-5)).filter((id) => known.has(id));
  const inCentre = new Set(centre);
  const neighbours = [];
  const taken = new Set();
  const byCentre = new Map(centre.map((id) => [id, []]));
  for (const id of centre) {
    const links = visibleEdges()
      .filter((e) => e.from === id || e.to === id)
      .map((e) => ({ other: e.from === id ? e.to : e.from, p: e.probability }))
      .filter((x) => !inCentre.has(x.other) && !taken.has(x.other))
      .sort((a, b) => b.p - a.p || (a.other < b.other ? -1 : 1))
      .slice(0, NEIGHBOURS_PER_NODE);
    for (const l of links) {
      if (neighbours.length >= MAX_FOCUS_NEIGHBOURS) break;
      taken.add(l.other);
      neighbours.push(l.other);
      byCentre.get(id).push(l.other);
    }
  }
  return { centre, neighbours, byCentre };
}

function nodeLabel(n, rank, max) {
  const text = `${n.speaker ? `${n.speaker}: ` : ''}${short(n.text, max)}`;
  return rank ? `#${rank} ${text}` : text;
}

/** Fixed positions: centre items in a column (rank order), each one's linked memories to its right. */
function focusPositions(focus) {
  const pos = new Map();
  let y = 0;
  for (const [i, id] of focus.centre.entries()) {
    const own = focus.byCentre.get(id) ?? [];
    const rows = Math.max(1, own.length);
    const mid = y + ((rows - 1) * ROW) / 2;
    pos.set(id, { x: (i % 2) * 24, y: mid }); // a slight zigzag keeps links between items off the others
    own.forEach((other, j) => pos.set(other, { x: 430, y: y + j * ROW }));
    y += rows * ROW + 8;
  }
  return pos;
}

function drawGraph() {
  const focus = graphMode === 'focus' ? focusSet() : null;
  const focusing = focus && focus.centre.length > 0;
  const rank = new Map(lastEvidence.map((id, i) => [id, i + 1]));
  const evidence = new Set(lastEvidence);
  const groups = sessionGroups();
  const shownGroups = groups.slice(Math.max(0, groups.length - sessionsShown));
  const keep = focusing ? new Set([...focus.centre, ...focus.neighbours]) : new Set(shownGroups.flatMap((g) => g.nodes.map((n) => n.id)));
  const nodes = graphData.nodes.filter((n) => keep.has(n.id));
  const centreSet = new Set(focusing ? focus.centre : []);
  // focus: links between evidence items and from each item to the memories placed next to it
  const ownerOf = new Map(focusing ? [...focus.byCentre].flatMap(([c, list]) => list.map((o) => [o, c])) : []);
  const shown = (e) => (centreSet.has(e.from) && centreSet.has(e.to)) || ownerOf.get(e.to) === e.from || ownerOf.get(e.from) === e.to;
  const edges = visibleEdges().filter((e) => keep.has(e.from) && keep.has(e.to) && (!focusing || shown(e)));
  cy.batch(() => {
    cy.elements().remove();
    if (!focusing) cy.add(shownGroups.map((g) => ({ data: { id: g.id, label: g.label }, classes: 'group', selectable: false })));
    const groupOf = new Map(focusing ? [] : shownGroups.flatMap((g) => g.nodes.map((n) => [n.id, g.id])));
    cy.add(nodes.map((n) => ({
      data: { ...n, parent: groupOf.get(n.id), label: focusing ? nodeLabel(n, rank.get(n.id), centreSet.has(n.id) ? 56 : 44) : nodeLabel(n, rank.get(n.id), 40), color: TYPE_COLORS[n.type] ?? '#999' },
      classes: `${evidence.has(n.id) ? 'evidence' : ''} ${focusing ? (centreSet.has(n.id) ? 'centre' : 'linked') : 'whole'}`.trim(),
    })));
    cy.add(edges.map((e) => ({ data: { id: e.id, source: e.from, target: e.to, view: e.view, subtype: e.subtype, color: VIEW_COLORS[e.view] ?? '#999', width: 0.8 + 2 * e.probability, arrow: e.view === 'causal' || e.subtype === 'PRECEDES' || e.subtype === 'UPDATES' ? 'triangle' : 'none' } })));
  });
  if (focusing) {
    const pos = focusPositions(focus);
    cy.layout({ name: 'preset', positions: (n) => pos.get(n.id()), animate: false, fit: false }).run();
    // fit, but never shrink the labels below a readable size (pan to see the rest)
    cy.fit(undefined, 20);
    if (cy.zoom() > 1.2) cy.zoom(1.2);
    if (cy.zoom() < 0.85) cy.zoom(0.85);
    const bb = cy.elements().boundingBox();
    cy.pan({ x: 24 - bb.x1 * cy.zoom(), y: Math.max(12, (cy.height() - bb.h * cy.zoom()) / 2) - bb.y1 * cy.zoom() });
  } else {
    layoutWhole(shownGroups);
  }
  const total = graphData.nodes.length;
  const more = groups.length - shownGroups.length;
  $('graph-caption').textContent = focusing
    ? `${lastEvidence.length ? `evidence for “${short(lastQuestion ?? '', 48)}”` : 'the latest memories stored'} and ${focus.neighbours.length} linked memories · ${nodes.length} of ${total}`
    : total ? `${shownGroups.length === groups.length ? `all ${groups.length} sessions` : `the last ${shownGroups.length === 1 ? 'session' : `${shownGroups.length} sessions`} of ${groups.length}`}: ${nodes.length} of ${total} memories, ${edges.length} links · tap a memory to read it` : '';
  $('graph-mode').textContent = graphMode === 'all' ? (lastEvidence.length ? 'Show the last answer’s evidence' : 'Show the latest memories') : `Show whole graph (${total})`;
  $('graph-mode').hidden = total === 0;
  $('show-more').hidden = focusing || more <= 0;
  $('show-more').textContent = `Show more: the session before (${more} more)`;
}

/** Session label from core's episode key: `m:3` → session 3, `s:D3` → session D3; else the day. */
function groupKey(n) {
  return n.episode ?? `day:${n.observedAt.slice(0, 10)}`;
}

/** Memories grouped by session (episode), oldest session first, each in time order. */
function sessionGroups() {
  const byKey = new Map();
  for (const n of graphData.nodes) {
    const k = groupKey(n);
    if (!byKey.has(k)) byKey.set(k, []);
    byKey.get(k).push(n);
  }
  const groups = [...byKey].map(([key, nodes]) => {
    nodes.sort((a, b) => (a.observedAt < b.observedAt ? -1 : a.observedAt > b.observedAt ? 1 : 0));
    const first = nodes[0].observedAt;
    const name = key.startsWith('day:') ? 'no session' : `session ${key.replace(/^[ms]:/, '')}`;
    const day = new Date(first).toLocaleDateString('en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' });
    return { id: `group:${key}`, key, nodes, first, last: nodes[nodes.length - 1].observedAt, label: `${name} · ${day} · ${nodes.length}` };
  });
  return groups.sort((a, b) => (a.last < b.last ? -1 : a.last > b.last ? 1 : 0));
}

/**
 * Whole graph: one column per session, the newest at x = 0 and older ones to its left, memories
 * top-down in time order, so a write (appended to its session) or "show more" (a column further
 * left) moves nothing already shown.
 */
function layoutWhole(shownGroups) {
  // one zoom for every session count: the longest session of the scope fits the panel's height
  const rows = Math.max(1, ...sessionGroups().map((g) => g.nodes.length));
  wholeZoom = Math.min(1.2, Math.max(0.35, (cy.height() - 56) / (rows * WHOLE_ROW)));
  const column = COLUMN_PX / wholeZoom;
  const pos = new Map();
  shownGroups.forEach((g, gi) => {
    const x = (gi - (shownGroups.length - 1)) * column;
    g.nodes.forEach((n, i) => pos.set(n.id, { x, y: i * WHOLE_ROW }));
  });
  // the memories only: a session box is sized by its members (moving a box would move them)
  cy.batch(() => cy.nodes(':childless').forEach((n) => n.position(pos.get(n.id()))));
  // the newest session at the right, the rest to its left (pan to see more than fits)
  cy.zoom(wholeZoom);
  cy.style().update();
  const bb = cy.elements().boundingBox();
  const right = (pos.size ? Math.max(...[...pos.values()].map((p) => p.x)) : 0) + (LABEL_PX + 24) / wholeZoom;
  const width = right - bb.x1;
  cy.pan({ x: width * wholeZoom <= cy.width() - 24 ? (cy.width() - width * wholeZoom) / 2 - bb.x1 * wholeZoom : cy.width() - 12 - right * wholeZoom, y: 30 - bb.y1 * wholeZoom });
  pickLabels();
}

/** Relevance order of the whole graph's labels: evidence rank, links shown, gate add/update, newer. */
function labelPriority() {
  const rank = new Map(lastEvidence.map((id, i) => [id, i]));
  const gateWeight = { add: 2, update: 1 };
  return cy.nodes(':childless').sort((a, b) => {
    const ra = rank.get(a.id()) ?? 1e9;
    const rb = rank.get(b.id()) ?? 1e9;
    if (ra !== rb) return ra - rb;
    const da = a.connectedEdges().length;
    const db = b.connectedEdges().length;
    if (da !== db) return db - da;
    const ga = gateWeight[a.data('gate')] ?? 0;
    const gb = gateWeight[b.data('gate')] ?? 0;
    if (ga !== gb) return gb - ga;
    return a.data('observedAt') < b.data('observedAt') ? 1 : -1;
  });
}

const overlaps = (a, b) => a.x1 < b.x2 && b.x1 < a.x2 && a.y1 < b.y2 && b.y1 < a.y2;
const labelBox = (n) => n.boundingBox({ includeNodes: false, includeEdges: false, includeLabels: true, includeOverlays: false });

// Label boxes as drawn on screen (px), from the label's text and its fixed on-screen font: they do
// not depend on cytoscape's cached sizes, which lag behind a zoom.
const measure = document.createElement('canvas').getContext('2d');
function textWidth(text, font) {
  measure.font = font;
  return measure.measureText(text).width;
}
function screenLabelBox(n) {
  const family = getComputedStyle(document.body).fontFamily;
  if (n.hasClass('group')) {
    const bb = n.renderedBoundingBox({ includeLabels: false });
    const w = textWidth(n.data('label'), `600 12px ${family}`) + 4;
    const cx = (bb.x1 + bb.x2) / 2;
    return { x1: cx - w / 2, x2: cx + w / 2, y1: bb.y1 - 22, y2: bb.y1 - 2, w };
  }
  const p = n.renderedPosition();
  const r = (n.renderedWidth() || 10) / 2;
  const w = Math.min(LABEL_PX, textWidth(n.data('label'), `${n.hasClass('evidence') ? 600 : 400} 11px ${family}`)) + 4;
  return { x1: p.x + r + 2, x2: p.x + r + 2 + w, y1: p.y - 8, y2: p.y + 8, w };
}

/** Label the most relevant memories whose labels do not overlap a taken label (greedy, in relevance order). */
function pickLabels() {
  if (graphMode !== 'all') return;
  cy.batch(() => cy.nodes().removeClass('quiet'));
  const taken = [];
  const quiet = [];
  // session headers first, newest first; then memories by relevance
  const groups = cy.nodes('.group').toArray().reverse();
  for (const n of [...groups, ...labelPriority()]) {
    const b = screenLabelBox(n);
    if (b.w <= 0) {
      quiet.push(n); // not measurable: never risk an overlap
      continue;
    }
    // a node's own dot belongs to it; other nodes' dots must stay readable too
    if (taken.some((t) => overlaps(t, b))) quiet.push(n);
    else taken.push(b);
  }
  cy.batch(() => quiet.forEach((n) => n.addClass('quiet')));
}

async function refreshGraph() {
  graphData = await api('/v1/graph?limit=400');
  const counts = {};
  for (const e of graphData.edges) counts[e.view] = (counts[e.view] ?? 0) + 1;
  for (const v of Object.keys(VIEW_COLORS)) $(`count-${v}`).textContent = `(${counts[v] ?? 0})`;
  nodesById.clear();
  for (const n of graphData.nodes) nodesById.set(n.id, n);
  $('empty-hint').hidden = graphData.nodes.length > 0;
  drawGraph();
}

async function refreshStats() {
  const s = await api('/v1/stats');
  const sc = s.scope;
  const part = (name, v) => `<span class="scope-part" data-scope="${name}" title="${v ? `memories of ${name} ${esc(v)}` : `no ${name} set: only memories stored without one`}">${name} ${v ? `<b>${esc(v)}</b>` : '<i>none</i>'}</span>`;
  $('scope-key').innerHTML = `${part('user', sc.userId)} ${part('agent', sc.agentId)} ${part('run', sc.runId)}${sc.namespace && sc.namespace !== 'default' ? ` <span class="scope-part">namespace <b>${esc(sc.namespace)}</b></span>` : ''}`;
  $('stats').innerHTML = `<span>${s.nodes} memories</span><span>${s.relations} relations</span><span>retriever ${esc(s.retriever)}</span><span>System Two: ${esc(s.systemTwo?.model ?? 'offline')}</span>`;
}

async function refresh() {
  await Promise.all([refreshGraph(), refreshStats()]);
}

async function run(fn) {
  busy(true);
  status('working…');
  try {
    await fn();
    await refresh();
    if (lastAdded) renderGate(lastAdded); // names of nearest memories are known after the refresh
    status('');
  } catch (e) {
    status(`${e.code ?? 'ERROR'}: ${e.message}`, true);
  } finally {
    busy(false);
  }
}

$('composer').addEventListener('submit', (e) => {
  e.preventDefault();
  const text = $('text').value.trim();
  if (!text) return;
  $('text').value = '';
  run(() => tell(text));
});
$('ask').addEventListener('click', () => {
  const text = $('text').value.trim();
  if (!text) return;
  $('text').value = '';
  run(() => ask(text));
});
$('text').addEventListener('keydown', (e) => {
  if (e.key === 'Enter' && !e.shiftKey) {
    e.preventDefault();
    (e.currentTarget.value.trim().endsWith('?') ? $('ask') : $('tell')).click();
  }
});
$('load-sample').addEventListener('click', () => run(loadSample));
$('empty-load-sample').addEventListener('click', () => run(loadSample));

initGraph();
run(restoreLast);
// For the end-to-end test: what the graph shows, and where.
window.memPlayground = {
  ready: true,
  graph: () => ({
    mode: graphMode,
    nodes: cy.nodes().map((n) => n.id()),
    evidence: [...lastEvidence],
    positions: Object.fromEntries(cy.nodes().map((n) => [n.id(), n.position()])),
    fontSize: cy.nodes().length ? parseFloat(cy.nodes()[0].style('font-size')) : null,
    zoom: cy.zoom(),
    pan: { ...cy.pan() },
    focused: cy.nodes('.focus').map((n) => n.id()),
    animating: cy.animated() || cy.nodes().some((n) => n.animated()),
    groups: cy.nodes('.group').map((g) => g.data('label')),
    unlabelled: cy.nodes('.quiet').length,
    edges: cy.edges().length,
  }),
  /** Zoom about the graph's centre by `factor` (the test's mouse wheel). */
  zoomBy: (factor) => cy.zoom({ level: cy.zoom() * factor, renderedPosition: { x: cy.width() / 2, y: cy.height() / 2 } }),
  /** Every label drawn inside the graph's visible area, in page pixels: { text, x1, y1, x2, y2 }. */
  labels: () => {
    const r = $('cy').getBoundingClientRect();
    const z = cy.zoom();
    const p = cy.pan();
    return cy.nodes().filter((n) => n.visible() && String(n.style('label') ?? '') !== '').map((n) => {
      const b = labelBox(n);
      return { text: n.style('label'), x1: r.left + b.x1 * z + p.x, y1: r.top + b.y1 * z + p.y, x2: r.left + b.x2 * z + p.x, y2: r.top + b.y2 * z + p.y };
    }).filter((b) => b.x2 > r.left && b.x1 < r.right && b.y2 > r.top && b.y1 < r.bottom && b.x2 > b.x1);
  },
};
