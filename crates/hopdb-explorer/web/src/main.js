// HopDB Explorer: the page served under /browser/.

import {
  runQuery,
  setCredentials,
  clearCredentials,
  storedCredentials,
  currentUser,
  setUnauthorizedHandler,
  quoteName,
  QueryError,
} from './api.js';
import {schema, extractGraph, holdsGraph, edgeKey, relWeight, nodeCaption, labelColour, resetLabelColours} from './model.js';
import * as view from './view.js';
import {knowledgeGraph, expandStep, fetchNodesById} from './kg.js';
import {createEditor, loadHistory, pushHistory} from './editor.js';
import {renderTable, renderPlan, clearPlan} from './results.js';
import {renderStore} from './store.js';
import {$, $$, h, fmtMs, fmtNum, truncate} from './util.js';

// ---- performance numbers for the tests ----------------------------------------

// window.__hopdbPerf is made by the loader (in index.html), which also records the paint
// timing; this adds the explorer's own figures.
const perf = window.__hopdbPerf || (window.__hopdbPerf = {firstPaintMs: null});
Object.assign(perf, {
  appLoadedMs: performance.now(), // when app.js started (after the login when the server has users)
  appReadyMs: null,
  lastExpandMs: null,
  lastExpandNodes: null,
  lastExpandEdges: null,
  lastExpandServerMs: null,
  lastExpandQueries: null,
  lastExpandKind: null,
  lastExpandBreakdown: null,
  lastQueryMs: null,
  lastDrawMs: null,
});

// ---- state ----------------------------------------------------------------------

let editor = null;
let viewReady = false;
let selectedId = null;
let busyCount = 0;
let appShown = false;

function busy(on) {
  busyCount = Math.max(0, busyCount + (on ? 1 : -1));
  $('#busy').hidden = busyCount === 0;
  document.body.dataset.busy = String(busyCount > 0);
}

let actionsDone = 0;

async function withBusy(fn) {
  busy(true);
  try {
    return await fn();
  } finally {
    busy(false);
    // a counter tests wait on: it moves when an action (search, expansion, query...) ends
    document.body.dataset.actions = String(++actionsDone);
  }
}

function setStatus(sel, text, kind = '') {
  const el = $(sel);
  el.textContent = text;
  el.className = `status ${kind}`;
}

// ---- login ----------------------------------------------------------------------

function showLogin(message) {
  appShown = false;
  $('#login-form').hidden = false;
  $('#explore-page').hidden = true;
  $('#store-page').hidden = true;
  $('#tabs').hidden = true;
  $('#session').hidden = true;
  $('#login-error').textContent = message || '';
  document.body.dataset.page = 'login';
  document.body.dataset.ready = 'false';
  const pw = $('#login-password');
  if (pw) setTimeout(() => ($('#login-user').value ? pw : $('#login-user')).focus(), 0);
}

async function tryLogin(user, password) {
  setCredentials(user, password, false);
  try {
    await runQuery('RETURN 1', {}, {quiet401: true});
  } catch (e) {
    clearCredentials();
    const msg =
      e.status === 401 || /Unauthorized/.test(e.code || '')
        ? 'The server refused these credentials.'
        : `${e.code || 'Error'}: ${e.message}`;
    showLogin(msg);
    return false;
  }
  setCredentials(user, password, true);
  $('#login-password').value = '';
  await showApp();
  return true;
}

setUnauthorizedHandler(() => {
  clearCredentials();
  showLogin('The server no longer accepts the credentials: log in again.');
});

async function showApp() {
  $('#login-form').hidden = true;
  $('#tabs').hidden = false;
  $('#session').hidden = false;
  $('#session-user').textContent = currentUser() || '';
  appShown = true;
  showPage('explore');
  if (!viewReady) {
    view.initView($('#graph'), {
      onNodeClick: (id) => selectNode(id),
      onNodeDoubleClick: (id) => expandOne(id),
      onStageClick: () => selectNode(null),
    });
    editor = createEditor($('#cypher-editor'), {
      onRun: () => runCypher(),
      onHistory: (item) => {
        if (item.params != null) $('#query-params').value = item.params;
      },
      initial: '',
    });
    fillHistory();
    viewReady = true;
  }
  await withBusy(loadSchema);
  perf.appReadyMs = performance.now();
  document.body.dataset.ready = 'true';
}

// ---- schema ---------------------------------------------------------------------

async function loadSchema() {
  const run = async (q) => {
    try {
      return await runQuery(q);
    } catch (e) {
      if (e instanceof QueryError && e.status === 401) throw e;
      return null;
    }
  };
  const one = async (q) => {
    const r = await run(q);
    return r ? r.values : null;
  };
  const [labels, types, keys, ft] = await Promise.all([
    one('CALL db.labels() YIELD label RETURN label'),
    one('CALL db.relationshipTypes() YIELD relationshipType RETURN relationshipType'),
    one('CALL db.propertyKeys() YIELD propertyKey RETURN propertyKey'),
    run('SHOW FULLTEXT INDEXES'),
  ]);
  schema.labels = (labels || []).map((r) => r[0]);
  // Rank labels by node count so the commonest get the most distinct colours.
  const viz = await run('CALL db.schema.visualization()');
  schema.labelCounts = new Map();
  schema.typeCounts = new Map();
  if (viz && viz.values.length) {
    for (const x of viz.values[0][0] || []) schema.labelCounts.set(x.name, x.count ?? 0);
    for (const x of viz.values[0][1] || []) schema.typeCounts.set(x.name, x.count ?? 0);
  }
  const ranked = [...schema.labels].sort((a, b) => (schema.labelCounts.get(b) || 0) - (schema.labelCounts.get(a) || 0) || a.localeCompare(b));
  schema.labelRank = new Map(ranked.map((l, i) => [l, i]));
  schema.types = (types || []).map((r) => r[0]);
  schema.propertyKeys = (keys || []).map((r) => r[0]);
  resetLabelColours();
  schema.fulltextIndexes = [];
  if (ft) {
    // SHOW FULLTEXT INDEXES has Neo4j's columns; find them by name.
    const col = (n) => ft.fields.indexOf(n);
    for (const row of ft.values) {
      const state = col('state') >= 0 ? row[col('state')] : 'ONLINE';
      const entity = col('entityType') >= 0 ? row[col('entityType')] : 'NODE';
      if (col('name') < 0 || entity !== 'NODE' || (state && state !== 'ONLINE')) continue;
      schema.fulltextIndexes.push({
        name: row[col('name')],
        labels: (col('labelsOrTypes') >= 0 && row[col('labelsOrTypes')]) || [],
        properties: (col('properties') >= 0 && row[col('properties')]) || [],
      });
    }
  }
  // Which relationship types are undirected: HopDB lists such a relationship from both ends,
  // so every sampled a->b has a b->a of the same type.
  schema.undirectedTypes = new Set();
  await Promise.all(
    schema.types.slice(0, 64).map(async (t) => {
      const q = `MATCH (a)-[:${quoteName(t)}]->(b) WITH a, b LIMIT 25 RETURN count(*) AS n, sum(CASE WHEN EXISTS { (b)-[:${quoteName(t)}]->(a) } THEN 1 ELSE 0 END) AS back`;
      const r = await one(q);
      if (r && r.length && r[0][0] > 0 && r[0][0] === r[0][1]) schema.undirectedTypes.add(t);
    }),
  );
  // Search by property: the string-looking properties.
  const sel = $('#search-property');
  sel.textContent = '';
  sel.append(h('option', {value: '_key'}, '_key'));
  for (const k of schema.propertyKeys) sel.append(h('option', {value: k}, k));
  const preferred = schema.propertyKeys.find((k) => k === 'description') || schema.propertyKeys.find((k) => k === 'name');
  if (preferred) sel.value = preferred;
  const info = schema.fulltextIndexes.length
    ? `full-text index: ${schema.fulltextIndexes.map((i) => i.name).join(', ')}`
    : 'no full-text index: text search uses CONTAINS';
  setStatus('#search-status', `${fmtNum(schema.labels.length)} labels, ${fmtNum(schema.types.length)} relationship types; ${info}`);
  document.body.dataset.fulltext = String(schema.fulltextIndexes.length > 0);
}

// ---- pages ----------------------------------------------------------------------

function showPage(page) {
  if (!appShown) return;
  $('#explore-page').hidden = page !== 'explore';
  $('#store-page').hidden = page !== 'store';
  for (const b of $$('#tabs button')) b.classList.toggle('active', b.dataset.page === page);
  document.body.dataset.page = page;
  if (page === 'store') withBusy(() => renderStore($('#store-page')));
  if (page === 'explore' && viewReady) {
    view.getRenderer().resize();
    view.getRenderer().refresh();
  }
}

function showResultView(which) {
  for (const id of ['graph', 'table', 'plan']) {
    const el = $(id === 'graph' ? '#graph' : id === 'table' ? '#result-table' : '#plan-tree');
    el.classList.toggle('active', id === which);
    $(`#view-${id}`).classList.toggle('active', id === which);
  }
  $('#result-area').dataset.view = which;
  if (which === 'graph' && viewReady) view.getRenderer().refresh();
}

// ---- search ---------------------------------------------------------------------

const SEARCH_LIMIT = 50;
const NODE_COLUMNS = 'elementId(n) AS id, n._key AS key, labels(n) AS labels, COUNT { (n)--() } AS degree';
let searchSeq = 0;

function textProperties() {
  const pref = ['description', 'name', 'title', 'entity_id', 'text'];
  return pref.filter((p) => schema.propertyKeys.includes(p)).slice(0, 3);
}

function search(q) {
  return withBusy(() => searchNow(q));
}

async function searchNow(q) {
  const seq = ++searchSeq;
  const mode = $('#search-mode').value;
  const list = $('#search-results');
  q = q.trim();
  if (!q) {
    list.textContent = '';
    return;
  }
  setStatus('#search-status', 'Searching…');
  const t0 = performance.now();
  const results = new Map();
  const add = (rows, how) => {
    for (const [id, key, labels, degree, score] of rows) {
      if (!results.has(id)) results.set(id, {id, key, labels, degree, how, score});
    }
  };
  const notes = [];
  try {
    if (mode === 'label') {
      const label = schema.labels.find((l) => l.toLowerCase() === q.toLowerCase()) || schema.labels.find((l) => l.toLowerCase().includes(q.toLowerCase()));
      if (!label) notes.push('no such label');
      else {
        const r = await runQuery(`MATCH (n:${quoteName(label)}) RETURN ${NODE_COLUMNS} ORDER BY degree DESC LIMIT ${SEARCH_LIMIT}`);
        add(r.values, `label ${label}`);
      }
    } else if (mode === 'property') {
      const p = $('#search-property').value || '_key';
      const acc = p === '_key' ? 'n._key' : `n.${quoteName(p)}`;
      const r = await runQuery(
        `MATCH (n) WHERE ${acc} IS NOT NULL AND toLower(toString(${acc})) CONTAINS toLower($q) RETURN ${NODE_COLUMNS} ORDER BY degree DESC LIMIT ${SEARCH_LIMIT}`,
        {q},
      );
      add(r.values, p);
    } else {
      // key first (exact, then substring), then full text or property substrings
      // keys may be strings or integers
      const qs = /^-?\d{1,15}$/.test(q) ? [q, Number(q)] : [q];
      const exact = await runQuery(`UNWIND $qs AS q MATCH (n {_key: q}) RETURN ${NODE_COLUMNS}`, {qs});
      add(exact.values, 'key');
      const keyRes = await runQuery(
        `MATCH (n) WHERE toLower(toString(n._key)) CONTAINS toLower($q) RETURN ${NODE_COLUMNS} ORDER BY degree DESC LIMIT ${SEARCH_LIMIT}`,
        {q},
      );
      add(keyRes.values, 'key');
      if (mode === 'auto' && results.size < SEARCH_LIMIT) {
        let done = false;
        for (const idx of schema.fulltextIndexes) {
          try {
            const r = await runQuery(
              `CALL db.index.fulltext.queryNodes($index, $q, {limit: ${SEARCH_LIMIT}}) YIELD node AS n, score RETURN ${NODE_COLUMNS}, score`,
              {index: idx.name, q: fulltextQuery(q)},
            );
            add(r.values, `full text (${idx.name})`);
            done = true;
          } catch (e) {
            if (e.status === 401) throw e;
            // a query the full-text syntax refuses: fall back to CONTAINS
          }
        }
        const props = textProperties();
        if (!done && props.length) {
          const where = props.map((p) => `toLower(toString(n.${quoteName(p)})) CONTAINS toLower($q)`).join(' OR ');
          const r = await runQuery(`MATCH (n) WHERE ${where} RETURN ${NODE_COLUMNS} ORDER BY degree DESC LIMIT ${SEARCH_LIMIT}`, {q});
          add(r.values, props.join('/'));
        }
      }
      const label = schema.labels.find((l) => l.toLowerCase() === q.toLowerCase());
      if (label) notes.push(`"${label}" is a label: choose "label" to list its nodes`);
    }
  } catch (e) {
    if (seq !== searchSeq) return;
    setStatus('#search-status', `${e.code || 'Error'}: ${e.message}`, 'error');
    return;
  }
  if (seq !== searchSeq) return;
  const items = [...results.values()].slice(0, SEARCH_LIMIT);
  list.textContent = '';
  for (const n of items) {
    list.append(
      h(
        'li',
        {
          dataset: {id: n.id, key: n.key == null ? '' : String(n.key), degree: String(n.degree ?? '')},
          title: `${n.how}; double-click: knowledge graph from here`,
          tabindex: '0',
          onclick: () => openNode(n),
          ondblclick: () => kgFrom(n),
          onkeydown: (ev) => ev.key === 'Enter' && openNode(n),
        },
        h('span.swatch', {style: {background: labelColour(n.labels)}}),
        h('span.result-key', truncate(String(n.key ?? `#${n.id}`), 60)),
        h('span.result-meta', `${(n.labels || []).join(':')} · ${fmtNum(n.degree)}`),
      ),
    );
  }
  list.dataset.count = String(items.length);
  setStatus('#search-status', `${items.length} result${items.length === 1 ? '' : 's'} in ${fmtMs(performance.now() - t0)}${notes.length ? '; ' + notes.join('; ') : ''}`);
}

/** Makes a user's words a full-text query: each word as a prefix, Lucene syntax escaped. */
function fulltextQuery(q) {
  if (/[*?"+\-:]|\b(AND|OR|NOT)\b/.test(q)) return q; // the user wrote Lucene syntax
  const words = q.split(/\s+/).filter(Boolean).map((w) => w.replace(/[()[\]{}^~\\/!]/g, ''));
  return words
    .filter(Boolean)
    .map((w) => `${w}*`)
    .join(' ');
}

// ---- graph actions --------------------------------------------------------------

function keyOf(id) {
  const d = view.nodeData(id);
  return d ? d.key : null;
}

async function ensureKey(id) {
  let key = keyOf(id);
  if (key != null) return key;
  const [n] = await fetchNodesById([id]);
  if (!n) return null;
  view.addNodes([n]);
  return n.key;
}

/** Opens a node from the search results: draws it (beside what is drawn) and selects it. */
async function openNode(n) {
  await withBusy(async () => {
    if (!view.hasNode(n.id)) {
      view.addNodes([{id: n.id, key: n.key, labels: n.labels, degree: n.degree}]);
      await view.commit({source: 'open'});
    }
    showResultView('graph');
    await selectNode(n.id);
    view.focusNode(n.id);
  });
}

function expandSettings() {
  const depth = Math.max(1, Math.min(20, Number($('#kg-depth').value) || 3));
  const maxNodes = Math.max(1, Math.min(100000, Number($('#kg-max-nodes').value) || 1000));
  return {maxDepth: depth, maxNodes};
}

/** LightRAG's get_knowledge_graph from a node: replaces the drawing. */
async function kgFrom(n) {
  const {maxDepth, maxNodes} = expandSettings();
  await withBusy(async () => {
    const t0 = performance.now();
    let res;
    try {
      const key = n.key != null ? n.key : await ensureKey(n.id);
      if (key == null) throw new Error('this node has no key');
      setStatus('#expand-status', `Expanding ${truncate(String(key), 40)} (depth ${maxDepth}, at most ${maxNodes} nodes)…`);
      res = await knowledgeGraph(key, {maxDepth, maxNodes});
    } catch (e) {
      setStatus('#expand-status', `${e.code ? e.code + ': ' : ''}${e.message}`, 'error');
      return;
    }
    const tData = performance.now();
    view.clearGraph();
    view.resetCamera(0);
    view.addNodes(res.nodes);
    view.addEdges(res.edges);
    const tBuilt = performance.now();
    const drawn = await view.commit({source: 'kg', truncated: res.truncated});
    const ms = performance.now() - t0;
    perf.lastExpandBreakdown = {fetchMs: tData - t0, buildMs: tBuilt - tData, ...drawn, queries: res.timings};
    recordExpansion('kg', ms, res, tData);
    showResultView('graph');
    setStatus(
      '#expand-status',
      `${fmtNum(res.nodes.length)} nodes, ${fmtNum(res.edges.length)} edges, depth ${res.depth}${res.truncated ? ' — truncated' : ''}; ${fmtMs(ms)} (${res.queries} queries, ${fmtMs(tData - t0)} to fetch)`,
      res.truncated ? 'warn' : '',
    );
    $('#expand-status').dataset.truncated = String(res.truncated);
    view.select(res.nodes[0].id);
    selectedId = res.nodes[0].id;
    showNodePanel(res.nodes[0].id);
    refreshLegend();
  });
}

/** The timings of the expansion just drawn, for the tests (window.__hopdbPerf). */
function recordExpansion(kind, ms, res, tData) {
  Object.assign(perf, {
    lastExpandMs: ms,
    lastExpandNodes: view.getGraph().order,
    lastExpandEdges: view.getGraph().size,
    lastExpandServerMs: res.serverMs,
    lastExpandQueries: res.queries,
    lastExpandKind: kind,
    lastDrawMs: performance.now() - tData,
  });
}

/** One step from a drawn node: adds its neighbours and their edges to drawn nodes. */
async function expandOne(id) {
  if (!id) return;
  const {maxNodes} = expandSettings();
  await withBusy(async () => {
    const t0 = performance.now();
    let res;
    try {
      const key = await ensureKey(id);
      if (key == null) throw new Error('this node has no key');
      res = await expandStep({id, key}, view.nodeIds(), {limit: maxNodes});
    } catch (e) {
      setStatus('#expand-status', `${e.code ? e.code + ': ' : ''}${e.message}`, 'error');
      return;
    }
    const tData = performance.now();
    view.addNodes(res.nodes);
    const added = view.addEdges(res.edges);
    await view.commit({source: 'expand', truncated: res.truncated});
    const ms = performance.now() - t0;
    recordExpansion('step', ms, res, tData);
    showResultView('graph');
    setStatus(
      '#expand-status',
      `+${fmtNum(res.nodes.length)} nodes, +${fmtNum(added)} edges${res.truncated ? ` — truncated (${fmtNum(res.total)} neighbours not drawn yet, max ${fmtNum(maxNodes)})` : ''}; ${fmtMs(ms)}`,
      res.truncated ? 'warn' : '',
    );
    $('#expand-status').dataset.truncated = String(res.truncated);
    refreshLegend();
  });
}

// ---- side panel -----------------------------------------------------------------

let panelSeq = 0;

async function selectNode(id) {
  selectedId = id && view.hasNode(id) ? id : null;
  view.select(selectedId);
  if (!selectedId) {
    $('#side-panel').dataset.node = '';
    return;
  }
  await showNodePanel(selectedId);
}

const PANEL_EDGE_LIMIT = 200;

async function showNodePanel(id) {
  const seq = ++panelSeq;
  const panel = $('#side-panel');
  const d = view.nodeData(id);
  panel.dataset.node = id;
  panel.dataset.state = 'loading';
  panel.textContent = '';
  panel.append(h('h2', truncate(d.label || `#${id}`, 80)), h('div.status', 'Loading…'));
  let node;
  let degree;
  let key = d.key;
  let edges;
  try {
    const match = key != null ? 'MATCH (n {_key: $key})' : 'MATCH (n) WHERE elementId(n) = $id';
    const params = key != null ? {key} : {id};
    const r = await runQuery(`${match} RETURN n, n._key AS key, COUNT { (n)--() } AS degree`, params);
    if (!r.values.length) throw new Error('the node no longer exists');
    [node, key, degree] = r.values[0];
    const er = await runQuery(
      `${match}-[r]-(m) RETURN elementId(r) AS rid, type(r) AS type, startNode(r) = n AS out, elementId(m) AS mid, m._key AS mkey, labels(m) AS mlabels, r.weight AS weight, properties(r) AS props LIMIT ${PANEL_EDGE_LIMIT}`,
      params,
    );
    edges = er.values;
  } catch (e) {
    if (seq !== panelSeq) return;
    panel.textContent = '';
    panel.append(h('div.status.error', `${e.code || 'Error'}: ${e.message}`));
    return;
  }
  if (seq !== panelSeq) return;
  view.addNodes([{id, key, labels: node.labels, degree, properties: node.properties}]);
  panel.textContent = '';
  panel.dataset.state = 'ready';
  panel.dataset.degree = String(degree);
  panel.dataset.key = key == null ? '' : String(key);
  const props = Object.entries(node.properties || {}).sort(([a], [b]) => a.localeCompare(b));
  panel.append(
    h('h2', {title: String(key)}, truncate(nodeCaption(node.properties, key) || `#${id}`, 80)),
    h('div.labels', node.labels.map((l) => h('span.label-chip', {style: {background: labelColour([l])}}, l))),
    h(
      'div.row.wrap',
      h('button', {type: 'button', id: 'panel-expand', onclick: () => expandOne(id)}, 'Expand one step'),
      h('button', {type: 'button', id: 'panel-kg', onclick: () => kgFrom({id, key})}, 'Knowledge graph'),
      h('button', {type: 'button', id: 'panel-hide', onclick: () => (view.removeNode(id), view.commit(), selectNode(null), panel.replaceChildren(h('div.empty', 'Removed from the drawing.')))}, 'Hide'),
    ),
    h(
      'table.props',
      h(
        'tbody',
        h('tr', h('th', '_key'), h('td', String(key))),
        h('tr', h('th', 'elementId'), h('td', id)),
        h('tr', h('th', 'degree'), h('td#panel-degree', fmtNum(degree))),
        props.map(([k, v]) => h('tr', h('th', k), h('td', propValue(v)))),
      ),
    ),
    h('h3', `Relationships (${fmtNum(degree)}${degree > edges.length ? `, first ${edges.length} shown` : ''})`),
    h(
      'ul#panel-edges',
      edges.map(([rid, type, out, mid, mkey, mlabels, weight, rprops]) =>
        h(
          'li',
          {
            dataset: {rid, mid},
            title: rprops && rprops.description ? String(rprops.description).slice(0, 600) : '',
            onclick: () => addNeighbour(id, {rid, type, out, mid, mkey, mlabels, weight}),
          },
          h('span.dir', schema.undirectedTypes.has(type) ? '—' : out ? '→' : '←'),
          h('span.rtype', type),
          h('span.swatch', {style: {background: labelColour(mlabels)}}),
          h('span.nkey', truncate(String(mkey ?? `#${mid}`), 50)),
          weight != null ? h('span.weight', `w ${fmtNum(weight)}`) : null,
        ),
      ),
    ),
  );
}

function propValue(v) {
  if (v == null) return 'null';
  const s = typeof v === 'object' ? JSON.stringify(v) : String(v);
  if (s.length <= 300) return s;
  return h('details', h('summary', truncate(s, 160)), h('div.long', s));
}

/** Clicking a relationship in the panel draws the neighbour and the relationship. */
async function addNeighbour(id, e) {
  if (!view.hasNode(e.mid)) view.addNodes([{id: e.mid, key: e.mkey, labels: e.mlabels, near: id}]);
  const source = e.out ? id : e.mid;
  const target = e.out ? e.mid : id;
  view.addEdges([{key: edgeKey(e.type, e.rid, source, target), source, target, type: e.type, weight: e.weight, directed: !schema.undirectedTypes.has(e.type)}]);
  await view.commit({source: 'expand'});
  view.select(selectedId);
  refreshLegend();
}

// ---- Cypher ---------------------------------------------------------------------

function fillHistory() {
  const sel = $('#query-history');
  const items = loadHistory();
  sel.textContent = '';
  sel.append(h('option', {value: ''}, `History (${items.length})…`));
  items.slice(0, 50).forEach((it, i) => sel.append(h('option', {value: String(i)}, truncate(it.statement.replace(/\s+/g, ' '), 90))));
}

function showError(e) {
  const el = $('#error');
  el.hidden = false;
  el.textContent = '';
  el.dataset.code = e.code || '';
  el.dataset.line = e.line == null ? '' : String(e.line);
  el.dataset.column = e.column == null ? '' : String(e.column);
  el.append(
    h('div.error-code', e.code || 'Error'),
    h('div.error-message', e.message),
    e.line != null ? h('div.error-position', `line ${e.line}, column ${e.column}`) : null,
  );
  if (e.line != null && editor) editor.markError(e.line, e.column);
}

function clearError() {
  const el = $('#error');
  el.hidden = true;
  el.textContent = '';
  el.dataset.code = '';
  el.dataset.line = '';
  el.dataset.column = '';
  if (editor) editor.clearError();
}

let querySeq = 0;

async function runCypher() {
  const statement = editor.value.trim();
  if (!statement) return;
  const paramsText = $('#query-params').value.trim();
  let params = {};
  clearError();
  if (paramsText) {
    try {
      params = JSON.parse(paramsText);
      if (!params || typeof params !== 'object' || Array.isArray(params)) throw new Error('parameters must be a JSON object');
    } catch (e) {
      showError({code: 'Parameters', message: `The parameters are not a JSON object: ${e.message}`});
      return;
    }
  }
  pushHistory(statement, paramsText);
  fillHistory();
  editor.resetHistoryCursor();
  const seq = ++querySeq;
  const head = /^\s*(EXPLAIN|PROFILE)\b/i.exec(statement.replace(/^\s*(\/\/[^\n]*\n|\/\*[\s\S]*?\*\/)*/g, ''));
  await withBusy(async () => {
    let res;
    const table = $('#result-table');
    table.dataset.state = 'running';
    try {
      res = await runQuery(statement, params);
    } catch (e) {
      if (seq !== querySeq) return;
      table.dataset.state = 'error';
      showError(e);
      $('#result-summary').textContent = 'failed';
      return;
    }
    if (seq !== querySeq) return;
    perf.lastQueryMs = res.ms;
    renderTable(table, res);
    table.dataset.state = 'ready';
    const summary = [`${fmtNum(res.values.length)} rows in ${fmtMs(res.ms)}`];
    let target = 'table';
    if (head) {
      const profiled = head[1].toUpperCase() === 'PROFILE';
      renderPlan($('#plan-tree'), profiled ? res.profile || res.plan : res.plan || res.profile, {profiled, statementKind: head[1].toUpperCase()});
      target = 'plan';
    } else clearPlan($('#plan-tree'));
    if (holdsGraph(res.values)) {
      const tDraw = performance.now();
      const {nodes, edges} = await drawResult(res.values);
      summary.push(`${fmtNum(nodes)} nodes, ${fmtNum(edges)} relationships drawn`);
      perf.lastDrawMs = performance.now() - tDraw;
      if (!head) target = 'graph';
    }
    $('#result-summary').textContent = summary.join('; ');
    showResultView(target);
  });
}

/** Draws the nodes and relationships of a result (replacing the drawing). */
async function drawResult(values) {
  const {nodes, rels} = extractGraph(values);
  view.clearGraph();
  view.resetCamera(0);
  const list = [...nodes.values()].map((n) => ({id: n.elementId, labels: n.labels, properties: n.properties}));
  // Relationships whose end nodes the result does not hold: draw their ends too.
  const missing = new Set();
  for (const r of rels.values()) {
    for (const end of [r.startNodeElementId, r.endNodeElementId]) if (!nodes.has(end)) missing.add(end);
  }
  for (const id of missing) list.push({id, labels: []});
  view.addNodes(list);
  view.addEdges(
    [...rels.entries()].map(([k, r]) => ({
      key: k,
      source: r.startNodeElementId,
      target: r.endNodeElementId,
      type: r.type,
      weight: relWeight(r.properties),
      directed: !schema.undirectedTypes.has(r.type),
    })),
  );
  await view.commit({source: 'query', truncated: false});
  refreshLegend();
  if (selectedId && !view.hasNode(selectedId)) {
    selectedId = null;
    $('#side-panel').replaceChildren(h('div.empty', 'Click a node for its properties and relationships; double-click to expand it.'));
    $('#side-panel').dataset.node = '';
  } else if (selectedId) view.select(selectedId);
  const counts = {nodes: view.getGraph().order, edges: view.getGraph().size};
  // Keys and degrees (for sizes, and to expand from them): one lookup for all.
  const ids = view.nodeIds();
  if (ids.length <= 5000) {
    const drawing = view.drawingId();
    fetchNodesById(ids)
      .then((found) => {
        if (view.drawingId() !== drawing) return; // replaced meanwhile
        view.addNodes(found.filter((n) => view.hasNode(n.id)));
        view.commit();
        refreshLegend();
      })
      .catch(() => {});
  }
  return counts;
}

// ---- algorithms -----------------------------------------------------------------

const ALGORITHMS = {
  pagerank: {
    title: 'PageRank',
    query: 'CALL hopdb.algo.pageRank() YIELD node, score WITH node, score WHERE elementId(node) IN $ids RETURN elementId(node) AS id, score AS value',
    mode: 'ramp',
  },
  leiden: {
    title: 'Leiden communities',
    query: 'CALL hopdb.algo.leiden() YIELD node, communityId WITH node, communityId WHERE elementId(node) IN $ids RETURN elementId(node) AS id, communityId AS value',
    mode: 'category',
  },
  wcc: {
    title: 'Connected components',
    query: 'CALL hopdb.algo.wcc() YIELD node, componentId WITH node, componentId WHERE elementId(node) IN $ids RETURN elementId(node) AS id, componentId AS value',
    mode: 'category',
  },
};

async function runAlgorithm(name) {
  const a = ALGORITHMS[name];
  const ids = view.nodeIds();
  if (!ids.length) {
    setStatus('#algo-status', 'Draw some nodes first.', 'warn');
    return;
  }
  await withBusy(async () => {
    setStatus('#algo-status', `Running ${a.title}…`);
    const t0 = performance.now();
    let res;
    try {
      res = await runQuery(a.query, {ids});
    } catch (e) {
      setStatus('#algo-status', `${e.code || 'Error'}: ${e.message}`, 'error');
      return;
    }
    const ms = performance.now() - t0;
    const values = new Map(res.values.map(([id, v]) => [id, v]));
    const leg = view.colourBy(a.mode, values, a.title);
    const distinct = new Set(values.values()).size;
    setStatus(
      '#algo-status',
      `${a.title} over the whole graph: ${fmtMs(ms)} (measured in the page). ${fmtNum(values.size)} drawn nodes coloured${a.mode === 'category' ? `, ${fmtNum(distinct)} groups among them` : ''}.`,
    );
    const st = $('#algo-status');
    st.dataset.algo = name;
    st.dataset.ms = String(Math.round(ms));
    st.dataset.coloured = String(values.size);
    renderLegend(leg, a.title);
  });
}

function refreshLegend() {
  if (view.colouringMode() === 'label') renderLegend(view.legend(), 'Labels');
}

function renderLegend(items, title) {
  const ul = $('#legend');
  ul.textContent = '';
  ul.dataset.title = title;
  for (const it of items) {
    ul.append(h('li', h('span.swatch', {style: {background: it.colour}}), h('span', truncate(it.text, 30)), it.count != null ? h('span.count', fmtNum(it.count)) : null));
  }
}

// ---- wiring ---------------------------------------------------------------------

function wire() {
  $('#login-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    $('#login-error').textContent = 'Connecting…';
    tryLogin($('#login-user').value, $('#login-password').value);
  });
  $('#logout').addEventListener('click', () => {
    clearCredentials();
    showLogin('');
  });
  for (const b of $$('#tabs button')) b.addEventListener('click', () => showPage(b.dataset.page));
  for (const b of $$('#result-tabs button')) b.addEventListener('click', () => showResultView(b.dataset.view));
  $('#search-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    search($('#search-input').value);
  });
  $('#search-mode').addEventListener('change', () => {
    $('#search-property').hidden = $('#search-mode').value !== 'property';
  });
  $('#kg-expand').addEventListener('click', () => {
    if (!selectedId) return setStatus('#expand-status', 'Select a node first (search, then click a result).', 'warn');
    kgFrom({id: selectedId, key: keyOf(selectedId)});
  });
  $('#expand-step').addEventListener('click', () => {
    if (!selectedId) return setStatus('#expand-status', 'Select a node first.', 'warn');
    expandOne(selectedId);
  });
  $('#graph-clear').addEventListener('click', () => {
    view.clearGraph();
    view.getRenderer().refresh();
    selectNode(null);
    $('#side-panel').replaceChildren(h('div.empty', 'Nothing drawn.'));
    setStatus('#expand-status', '');
    refreshLegend();
  });
  for (const b of $$('[data-algo]')) b.addEventListener('click', () => runAlgorithm(b.dataset.algo));
  $('#algo-reset').addEventListener('click', () => {
    renderLegend(view.colourBy('label'), 'Labels');
    setStatus('#algo-status', '');
  });
  $('#run-query').addEventListener('click', () => runCypher());
  $('#query-params').addEventListener('keydown', (ev) => {
    if (ev.key === 'Enter' && (ev.ctrlKey || ev.metaKey)) {
      ev.preventDefault();
      runCypher();
    }
  });
  $('#query-history').addEventListener('change', (ev) => {
    const i = ev.target.value;
    if (i === '') return;
    const it = loadHistory()[Number(i)];
    if (it) {
      editor.value = it.statement;
      $('#query-params').value = it.params || '';
      editor.focus();
    }
    ev.target.value = '';
  });
  document.addEventListener('visibilitychange', () => {
    if (document.hidden && viewReady) view.stopLayout();
  });
}

// Hooks for tests and the console.
window.hopdbExplorer = {
  search,
  openNode,
  kgFrom,
  expandOne,
  runCypher,
  runAlgorithm,
  setQuery: (statement, params) => {
    editor.value = statement;
    $('#query-params').value = params ? JSON.stringify(params) : '';
  },
  graphCounts: () => ({nodes: view.getGraph().order, edges: view.getGraph().size}),
  drawnIds: () => view.nodeIds(),
  drawnEdges: () => view.getGraph().mapEdges((k, a, s, t) => ({key: k, source: s, target: t, type: a.relType})),
  /** Where a drawn node is, in page coordinates (for clicking it). */
  nodePagePosition: (id) => {
    const r = view.getRenderer();
    const d = r.getNodeDisplayData(id);
    if (!d) return null;
    const p = r.framedGraphToViewport(d);
    const box = $('#graph').getBoundingClientRect();
    return {x: box.left + p.x, y: box.top + p.y};
  },
  stopLayout: () => view.stopLayout(),
};

wire();
const saved = storedCredentials();
if (saved) {
  $('#login-user').value = saved.user;
  tryLogin(saved.user, saved.password);
} else showLogin('');
