// @mem playground: plain ES module, no bundler. Talks to the demo-agent HTTP API (/v1/*).
import cytoscape from '/vendor/cytoscape.esm.min.mjs';

const TYPE_COLORS = { episodic: '#4c8bf5', semantic: '#34a853', procedural: '#f4a300', preference: '#e8467c' };
const VIEW_COLORS = { semantic: '#2f6fed', temporal: '#00a3a3', causal: '#e0452b', entity: '#8a8f99' };
const THETA_ACT = 0.1; // docs/design.md: a view is active when its routing probability ≥ θ_act = 0.10

const $ = (id) => document.getElementById(id);
const esc = (s) => String(s ?? '').replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch]);
const f = (n, d = 3) => (typeof n === 'number' && Number.isFinite(n) ? n.toFixed(d) : '–');
const short = (t, n) => (t.length > n ? `${t.slice(0, n - 1)}…` : t);

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
  for (const id of ['tell', 'ask', 'load-sample']) $(id).disabled = on;
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
}

async function ask(text) {
  const obs = observationFromForm(text);
  addMessage('user', `<span class="who">${esc(obs.speaker)} asks</span>${esc(text)}`);
  const r = await api('/v1/ask', { method: 'POST', body: { question: text, k: 5 } });
  const label = r.mode === 'llm'
    ? `<span class="label llm">System Two · ${esc(r.model)}</span>`
    : '<span class="label evidence">offline: top evidence statement, not generated</span>';
  const items = r.evidence
    .map((e) => `<li data-node="${esc(e.id)}">${e.sourceId ? `<b>${esc(e.sourceId)}</b> ` : ''}${esc(e.speaker ?? '')}${e.speaker ? ': ' : ''}${esc(short(e.text, 120))} <span class="score">(${esc(e.observedAt.slice(0, 10))} · ${f(e.score, 2)}${e.via.length ? ` · via ${esc(e.via.join('→'))}` : ''})</span></li>`)
    .join('');
  const li = addMessage('agent', `<span class="who">agent</span>${label}${esc(r.answer)}<ol class="evidence-list" data-testid="evidence">${items}</ol>`);
  li.querySelectorAll('[data-node]').forEach((el) => el.addEventListener('click', () => focusNode(el.dataset.node)));
  renderTrace(r);
  lastEvidence = new Set(r.evidence.map((e) => e.id));
  if ($('remember-questions').checked) {
    const res = await api('/v1/observations', { method: 'POST', body: { observations: [obs] } });
    renderGate(res.added);
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
      const rel = g.action === 'add' ? '≥ τ + δ' : g.action === 'update' ? 'in [τ, τ + δ)' : '< τ';
      return `<div class="gate-item" data-testid="gate-item">
        <span class="badge ${g.action}">${g.action}</span> novelty ν = <b>${f(g.novelty)}</b> ${rel}, threshold τ = <b>${f(g.threshold)}</b>
        ${gateMeter(g)}
        <div class="gate-text">“${esc(short(a.node.text, 110))}”</div>
        <dl class="kv"><dt>s_vMF</dt><dd>${f(g.score)}</dd><dt>κ</dt><dd>${f(g.kappa, 1)}</dd><dt>density ρ</dt><dd>${f(g.density, 3)}</dd>
        <dt>nearest</dt><dd>${g.nearest ? nearestText(g.nearest) : '–'}</dd></dl></div>`;
    })
    .join('');
  el.innerHTML = `${added.length > 1 ? `<p>${added.length} observations: <span class="badge add">add ${counts.add}</span> <span class="badge update">update ${counts.update}</span> <span class="badge noop">noop ${counts.noop}</span> · latest first:</p>` : ''}${items}`;
}

// ---------- trace panel ----------
function probRow(name, p, markAt) {
  const active = markAt !== undefined && p >= markAt;
  return `<div class="prob"><span>${esc(name)}${active ? ' ✓' : ''}</span><div class="meter"><div class="fill" style="width:${(p * 100).toFixed(1)}%;background:${VIEW_COLORS[name] ?? '#6b7480'}"></div>${markAt !== undefined ? `<div class="mark" style="left:${markAt * 100}%"></div>` : ''}</div><span>${f(p, 2)}</span></div>`;
}

function renderTrace(r) {
  const t = r.trace;
  const el = $('trace');
  if (!t.routing) {
    el.innerHTML = `<p><b>${esc(t.retriever ?? 'flat')}</b> retriever: no routing or rounds (flat top-k). ${f(r.ms, 0)} ms.</p>`;
    return;
  }
  const views = ['semantic', 'temporal', 'causal', 'entity'];
  const routing = views.map((v) => probRow(v, t.routing[v] ?? 0, THETA_ACT)).join('')
    + probRow('multi-hop h(q)', t.routing.multiHopNeed ?? 0)
    + probRow('recency r(q)', t.routing.recencyImportance ?? 0);
  const budgets = t.budgets
    ? `<table><tr><th>view</th><th>b_g</th><th>spent</th></tr>${Object.keys(t.budgets.given).map((v) => `<tr><td><span class="bar-line" style="background:${VIEW_COLORS[v]}"></span>${esc(v)}${t.activeViews.includes(v) ? '' : ' <span class="empty">(off)</span>'}</td><td>${t.budgets.given[v]}</td><td>${t.budgets.spent[v] ?? 0}</td></tr>`).join('')}</table>`
    : '<p class="empty">no budgets</p>';
  const rounds = t.rounds.length
    ? `<table><tr><th>depth</th><th>frontier</th><th>admitted</th><th>edges</th><th>s / u / m / c</th><th>stop</th></tr>${t.rounds
        .map((x) => `<tr><td>${x.depth}</td><td>${x.frontier}</td><td>${Object.entries(x.admitted).filter(([, n]) => n).map(([v, n]) => `${esc(v)} ${n}`).join(', ') || '0'}</td><td>${x.edgesExamined}</td><td>${x.stopping ? [x.stopping.sufficient, x.stopping.continueUseful, x.stopping.missing, x.stopping.contradiction].map((v) => f(v, 2)).join(' / ') : '–'}</td><td>${esc(x.reason ?? '')}</td></tr>`)
        .join('')}</table>`
    : '<p class="empty">no expansion rounds</p>';
  el.innerHTML = `<p class="q">“${esc(short(r.question, 100))}”</p>
    <p class="summary">stop reason <span class="stop" data-testid="stop-reason">${esc(t.stopReason ?? '–')}</span> · ${t.rounds.length} round(s) · controller calls ${t.controllerCalls ?? '–'} · nodes visited ${t.nodesVisited ?? '–'} · ${f(r.ms, 0)} ms</p>
    <div class="cols">
      <div><div class="section-title">Routing probabilities (mark: θ_act = ${THETA_ACT})</div>${routing}</div>
      <div><div class="section-title">Budgets (depth D(q) = ${t.depth ?? '–'})</div>${budgets}</div>
    </div>
    <div class="section-title">Rounds</div>${rounds}`;
}

// ---------- graph ----------
let cy;
// Temporal edges (PRECEDES / SAME_EPISODE / CONCURRENT) outnumber the others by far: hidden until asked for.
const hiddenViews = new Set(['temporal']);
const nodesById = new Map();
let lastAdded = null;
let lastEvidence = new Set();

function initGraph() {
  $('legend').innerHTML = Object.entries(TYPE_COLORS).map(([k, c]) => `<span><span class="dot" style="background:${c}"></span>${k}</span>`).join('') + '<span><span class="dot" style="background:#fff;border:1.5px dashed #555"></span>noop</span><span><span class="dot" style="background:#fff;border:2.5px solid #f4b400"></span>last evidence</span>';
  $('views').innerHTML = 'edges: ' + Object.entries(VIEW_COLORS).map(([v, c]) => `<label><input type="checkbox" data-view="${v}" ${hiddenViews.has(v) ? '' : 'checked'} /> <span class="bar-line" style="background:${c}"></span>${v} <span id="count-${v}"></span></label>`).join('');
  $('views').querySelectorAll('input').forEach((box) => box.addEventListener('change', () => {
    if (box.checked) hiddenViews.delete(box.dataset.view); else hiddenViews.add(box.dataset.view);
    applyViewFilter();
    runLayout();
  }));
  cy = cytoscape({
    container: $('cy'),
    style: [
      { selector: 'node', style: { 'background-color': 'data(color)', label: 'data(label)', 'font-size': 7, color: '#444', width: 12, height: 12, 'text-valign': 'bottom', 'text-margin-y': 2, 'min-zoomed-font-size': 6 } },
      { selector: 'node[gate = "noop"]', style: { 'border-width': 1.5, 'border-style': 'dashed', 'border-color': '#444' } },
      { selector: 'node.evidence', style: { 'border-width': 3, 'border-color': '#f4b400', 'border-style': 'solid', width: 16, height: 16 } },
      { selector: 'node:selected, node.focus', style: { width: 22, height: 22, 'border-width': 3, 'border-color': '#1d2430', 'border-style': 'solid' } },
      { selector: 'edge', style: { width: 'data(width)', 'line-color': 'data(color)', opacity: 0.55, 'curve-style': 'bezier', 'target-arrow-shape': 'data(arrow)', 'target-arrow-color': 'data(color)', 'arrow-scale': 0.6 } },
      { selector: 'edge.hidden-view', style: { display: 'none' } },
    ],
  });
  cy.on('tap', 'node', (e) => showNode(e.target.data()));
  cy.on('tap', (e) => { if (e.target === cy) $('node-info').hidden = true; });
}

function applyViewFilter() {
  cy.edges().forEach((e) => e.toggleClass('hidden-view', hiddenViews.has(e.data('view'))));
}

function showNode(d) {
  const box = $('node-info');
  box.hidden = false;
  box.innerHTML = `<b>${esc(d.sourceId ?? d.id.slice(0, 10))}</b> · ${esc(d.type)}${d.gate ? ` · <span class="badge ${d.gate}">${d.gate}</span>` : ''}<br>${esc(d.observedAt.slice(0, 16).replace('T', ' '))} · ${esc(d.speaker ?? '')}<br>${esc(d.text)}`;
}

function focusNode(id) {
  const n = cy.getElementById(id);
  if (!n.length) return;
  cy.nodes().removeClass('focus');
  n.addClass('focus');
  cy.animate({ center: { eles: n }, duration: 200 });
  showNode(n.data());
}

async function refreshGraph() {
  const g = await api('/v1/graph?limit=400');
  const counts = {};
  // Keep the positions of nodes already drawn: the layout only reruns when the node set changes.
  const positions = new Map(cy.nodes().map((n) => [n.id(), { ...n.position() }]));
  cy.batch(() => {
    cy.elements().remove();
    cy.add(g.nodes.map((n) => ({ data: { ...n, label: n.sourceId ?? short(n.text, 16), color: TYPE_COLORS[n.type] ?? '#999' }, position: positions.get(n.id) ?? { x: 0, y: 0 } })));
    cy.add(g.edges.map((e) => {
      counts[e.view] = (counts[e.view] ?? 0) + 1;
      return { data: { id: e.id, source: e.from, target: e.to, view: e.view, subtype: e.subtype, color: VIEW_COLORS[e.view] ?? '#999', width: 0.6 + 1.6 * e.probability, arrow: e.view === 'causal' || e.subtype === 'PRECEDES' || e.subtype === 'UPDATES' ? 'triangle' : 'none' } };
    }));
  });
  for (const v of Object.keys(VIEW_COLORS)) $(`count-${v}`).textContent = `(${counts[v] ?? 0})`;
  cy.nodes().forEach((n) => n.toggleClass('evidence', lastEvidence.has(n.id())));
  applyViewFilter();
  nodesById.clear();
  for (const n of g.nodes) nodesById.set(n.id, n);
  const changed = g.nodes.some((n) => !positions.has(n.id)) || positions.size !== g.nodes.length;
  if (changed) runLayout();
}

function runLayout() {
  // Lay out on the visible edges only, so hidden views do not pull the picture together.
  const eles = cy.nodes().union(cy.edges().not('.hidden-view'));
  eles.layout({ name: 'cose', animate: false, nodeRepulsion: () => 12000, idealEdgeLength: () => 70, randomize: true, fit: true, padding: 24, componentSpacing: 60 }).run();
}

async function refreshStats() {
  const s = await api('/v1/stats');
  const sc = s.scope;
  $('scope-key').textContent = [sc.namespace, sc.userId, sc.agentId, sc.runId].join('|');
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

initGraph();
run(async () => {});
window.memPlayground = { ready: true };
