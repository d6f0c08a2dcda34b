// Browser test of the HopDB Explorer page, driving Debian's Chromium (headless) with
// playwright-core. Every step is checked against the server's own answers to the same
// queries (node, edge and row counts, error positions, plan shapes), never by pixels, and
// leaves a screenshot.
//
//   node test/explorer.test.mjs --url http://127.0.0.1:PORT/browser/ [--user U --password P]
//        [--wrong-password W] --screenshots DIR --out RESULT.json [--chromium PATH] [--allow-skip]
//        [--expand-nodes 500] [--expand-runs 3]
//
// The page must be served with the API on the same origin (`hopdb serve`, or dev-server.mjs
// in front of it). Exit code 0 when every check passes, 1 when one fails (the failures are
// printed and written to RESULT.json), 0 with "SKIPPED: ..." when Chromium is missing and
// --allow-skip is given (2 without it). Timings are recorded, never judged.

import {existsSync} from 'node:fs';
import {mkdir, writeFile} from 'node:fs/promises';
import path from 'node:path';

// ---- arguments -------------------------------------------------------------------

function arg(name, dflt) {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && i + 1 < process.argv.length ? process.argv[i + 1] : dflt;
}
const flag = (name) => process.argv.includes(`--${name}`);

const pageUrl = arg('url');
if (!pageUrl) {
  console.error('usage: node test/explorer.test.mjs --url http://HOST:PORT/browser/ [--user U --password P] --screenshots DIR --out RESULT.json');
  process.exit(2);
}
const user = arg('user', 'neo4j');
const password = arg('password', 'hopdb');
const wrongPassword = arg('wrong-password', `${password}-wrong`);
const shotsDir = path.resolve(arg('screenshots', 'explorer-screenshots'));
const outFile = path.resolve(arg('out', 'explorer-result.json'));
const allowSkip = flag('allow-skip');
const expandTarget = Number(arg('expand-nodes', '500'));
const expandRuns = Math.max(1, Number(arg('expand-runs', '3')));
const origin = new URL(pageUrl).origin;

function skip(why) {
  console.log(`SKIPPED: ${why}`);
  process.exit(allowSkip ? 0 : 2);
}

// ---- Chromium and playwright-core ------------------------------------------------

// --chromium PATH (or CHROMIUM_PATH) names the browser; else Debian's usual places.
const chromiumWanted = arg('chromium') || process.env.CHROMIUM_PATH;
const chromiumPath = (chromiumWanted ? [chromiumWanted] : ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome']).find((p) => existsSync(p));
if (!chromiumPath) skip(`no Chromium at ${chromiumWanted || '/usr/bin/chromium'} (apt-get install -y chromium, or pass --chromium PATH)`);
let chromium;
try {
  ({chromium} = await import('playwright-core'));
} catch (e) {
  skip(`playwright-core is not installed (npm ci in crates/hopdb-explorer/web): ${e.message}`);
}

// ---- the API, for the expected answers -------------------------------------------

const auth = 'Basic ' + Buffer.from(`${user}:${password}`).toString('base64');

async function api(statement, parameters = {}) {
  const resp = await fetch(`${origin}/db/neo4j/query/v2`, {
    method: 'POST',
    headers: {'Content-Type': 'application/json', Authorization: auth},
    body: JSON.stringify({statement, parameters}),
  });
  const body = await resp.json().catch(() => null);
  if (!resp.ok || !body || body.errors) {
    const e = new Error(`API ${resp.status}: ${JSON.stringify(body && body.errors)} for ${statement}`);
    e.status = resp.status;
    e.body = body;
    throw e;
  }
  return body;
}
const rows = async (statement, parameters) => (await api(statement, parameters)).data.values;

async function apiError(statement) {
  const resp = await fetch(`${origin}/db/neo4j/query/v2`, {
    method: 'POST',
    headers: {'Content-Type': 'application/json', Authorization: auth},
    body: JSON.stringify({statement, parameters: {}}),
  });
  const body = await resp.json().catch(() => null);
  return {status: resp.status, error: body && body.errors && body.errors[0]};
}

// Undirected relationship types, found exactly: each of their relationships is listed from
// both ends, so a directed count gives twice the type's count in db.schema.visualization().
async function undirectedTypes() {
  const [[, rels]] = await rows('CALL db.schema.visualization()');
  const set = new Set();
  for (const r of rels || []) {
    const [[c]] = await rows(`MATCH ()-[r:\`${r.name.replace(/`/g, '``')}\`]->() RETURN count(r)`);
    if (r.count > 0 && c === 2 * r.count) set.add(r.name);
  }
  return set;
}

let UNDIRECTED = new Set();

function canonicalEdge(type, elementId, start, end) {
  if (UNDIRECTED.has(type)) {
    const [a, b] = Number(start) <= Number(end) ? [start, end] : [end, start];
    return `u|${type}|${a}|${b}`;
  }
  return elementId;
}

/** Distinct nodes (with the relationships' ends) and relationships of a result. */
function graphOf(values) {
  const nodes = new Set();
  const rels = new Set();
  const visit = (v, d) => {
    if (v == null || typeof v !== 'object' || d > 6) return;
    if (!Array.isArray(v) && typeof v.elementId === 'string' && Array.isArray(v.labels)) {
      nodes.add(v.elementId);
      return;
    }
    if (!Array.isArray(v) && typeof v.elementId === 'string' && typeof v.type === 'string' && 'startNodeElementId' in v) {
      rels.add(canonicalEdge(v.type, v.elementId, v.startNodeElementId, v.endNodeElementId));
      nodes.add(v.startNodeElementId);
      nodes.add(v.endNodeElementId);
      return;
    }
    for (const x of Array.isArray(v) ? v : Object.values(v)) visit(x, d + 1);
  };
  for (const r of values) visit(r, 0);
  return {nodes: nodes.size, edges: rels.size};
}

function countOperators(plan) {
  if (!plan) return 0;
  return 1 + (plan.children || []).reduce((a, c) => a + countOperators(c), 0);
}

function parsePosition(message) {
  const m = /line\s+(\d+)\s*,\s*column\s+(\d+)/i.exec(message || '');
  return m ? {line: Number(m[1]), column: Number(m[2])} : null;
}

function parseMetrics(text) {
  const m = new Map();
  for (const line of text.split('\n')) {
    if (!line || line[0] === '#') continue;
    const x = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s+(\S+)/.exec(line);
    if (x && !x[2]) m.set(x[1], Number(x[3]));
  }
  return m;
}

// ---- the run ----------------------------------------------------------------------

const result = {
  url: pageUrl,
  startedAt: new Date().toISOString(),
  chromium: chromiumPath,
  ok: false,
  checks: [],
  perf: {},
  notes: [],
  screenshots: [],
  pageErrors: [],
};
let failed = 0;
let passed = 0;

function check(step, name, ok, expected, actual) {
  result.checks.push({step, name, ok: !!ok, expected, actual});
  if (ok) passed++;
  else failed++;
  console.log(`${ok ? 'ok  ' : 'FAIL'} [${step}] ${name}${ok ? '' : `: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`}`);
}

await mkdir(shotsDir, {recursive: true});
let shotNo = 0;
async function shot(page, name, opts = {}) {
  const file = path.join(shotsDir, `${String(++shotNo).padStart(2, '0')}-${name}.png`);
  await page.screenshot({path: file, ...opts});
  result.screenshots.push(file);
}

async function finish(code) {
  result.finishedAt = new Date().toISOString();
  result.passed = passed;
  result.failed = failed;
  result.ok = failed === 0 && code === 0;
  await mkdir(path.dirname(outFile), {recursive: true});
  await writeFile(outFile, JSON.stringify(result, null, 2) + '\n');
  console.log(`\nresult: ${outFile}`);
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(result.ok ? 0 : 1);
}

let browser;
try {
  // The server's answers this run compares against.
  await rows('RETURN 1');
  UNDIRECTED = await undirectedTypes();
  result.notes.push(`undirected relationship types: ${[...UNDIRECTED].join(', ') || 'none'}`);
  const [[seedKey, seedDegree]] = await rows('MATCH (n) RETURN n._key AS key, COUNT { (n)--() } AS d ORDER BY d DESC, key LIMIT 1');
  result.seed = {key: seedKey, degree: seedDegree};

  browser = await chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    // software WebGL (SwiftShader) for sigma.js on machines without a GPU
    // (Chromium falls back to SwiftShader's Vulkan; forcing ANGLE onto SwiftShader would slow
    // the compositor, and so every paint, several times)
    args: ['--no-sandbox', '--enable-unsafe-swiftshader'],
  });
  result.browserVersion = browser.version();
  const context = await browser.newContext({viewport: {width: 1440, height: 900}});
  const page = await context.newPage();
  page.on('pageerror', (e) => result.pageErrors.push(e.message));
  page.setDefaultTimeout(30000);

  const data = (sel) => page.$eval(sel, (el) => ({...el.dataset}));
  const actions = async () => Number((await page.evaluate(() => document.body.dataset.actions)) || 0);
  // Runs an action and waits until the page reports it done (data-actions moves on, nothing busy).
  async function act(fn, timeout = 60000) {
    const before = await actions();
    await fn();
    await page.waitForFunction(
      (b) => Number(document.body.dataset.actions || 0) > b && document.body.dataset.busy !== 'true',
      before,
      {timeout},
    );
  }
  async function setEditor(text) {
    await page.click('#cypher-editor .cm-content');
    await page.keyboard.press('Control+a');
    await page.keyboard.press('Delete');
    await page.keyboard.insertText(text);
  }

  // 1. Load: the login form and nothing else.
  const step1 = 'load';
  await page.goto(pageUrl, {waitUntil: 'load'});
  await page.waitForSelector('#login-form', {state: 'visible'});
  // paint entries come a little after the frame; the page falls back to its own frame time after 3 s
  await page.waitForFunction(() => window.__hopdbPerf && window.__hopdbPerf.firstPaintMs != null, null, {timeout: 10000}).catch(() => {});
  const loadPerf = await page.evaluate(() => {
    const nav = performance.getEntriesByType('navigation')[0];
    return {
      ...window.__hopdbPerf,
      domContentLoadedMs: nav ? nav.domContentLoadedEventEnd : null,
      loadMs: nav ? nav.loadEventEnd : null,
      paintEntries: performance.getEntriesByType('paint').map((e) => ({name: e.name, startTime: e.startTime})),
    };
  });
  result.perf.firstPaintMs = loadPerf.firstPaintMs;
  result.perf.firstPaintSource = loadPerf.firstPaintSource;
  result.perf.firstFrameMs = loadPerf.firstFrameMs;
  result.perf.firstContentfulPaintMs = loadPerf.firstContentfulPaintMs;
  result.perf.domContentLoadedMs = loadPerf.domContentLoadedMs;
  result.perf.loadMs = loadPerf.loadMs;
  result.perf.paintEntries = loadPerf.paintEntries;
  check(step1, 'login form shown', await page.isVisible('#login-form'), true, await page.isVisible('#login-form'));
  check(step1, 'explorer hidden before login', !(await page.isVisible('#explore-page')), false, await page.isVisible('#explore-page'));
  check(step1, 'first paint recorded in window.__hopdbPerf', typeof loadPerf.firstPaintMs === 'number', 'a number', loadPerf.firstPaintMs);
  await shot(page, 'login');

  // 2. Log in (first with a wrong password when the server checks passwords).
  const step2 = 'login';
  const bogus = await fetch(`${origin}/db/neo4j/query/v2`, {
    method: 'POST',
    headers: {'Content-Type': 'application/json', Authorization: 'Basic ' + Buffer.from(`${user}:${wrongPassword}`).toString('base64')},
    body: JSON.stringify({statement: 'RETURN 1'}),
  });
  if (bogus.status === 401) {
    await page.fill('#login-user', user);
    await page.fill('#login-password', wrongPassword);
    await page.click('#login-submit');
    await page.waitForFunction(() => /refused/.test(document.querySelector('#login-error').textContent), null, {timeout: 15000}).catch(() => {});
    const msg = await page.textContent('#login-error');
    check(step2, 'a wrong password is refused on the login form', /refused/.test(msg) && !(await page.isVisible('#explore-page')), 'refused', msg);
    const anon = await fetch(new URL('app.js', pageUrl));
    check(step2, 'app.js is not served without credentials', anon.status === 401, 401, anon.status);
    await shot(page, 'login-refused');
  } else result.notes.push('the server accepts any credentials (no users): the wrong-password check was skipped');
  await page.fill('#login-user', user);
  await page.fill('#login-password', password);
  await page.click('#login-submit');
  await page.waitForSelector('body[data-ready="true"]', {timeout: 30000});
  check(step2, 'login form hidden', !(await page.isVisible('#login-form')), false, await page.isVisible('#login-form'));
  for (const sel of ['#graph', '#search-input', '#cypher-editor', '#run-query', '#side-panel']) {
    check(step2, `${sel} visible`, await page.isVisible(sel), true, await page.isVisible(sel));
  }
  await shot(page, 'logged-in');

  // 3. Search the highest-degree node by its key.
  const step3 = 'search';
  await page.fill('#search-input', String(seedKey));
  await act(() => page.click('#search-submit'));
  const found = await page.$$eval('#search-results li', (lis) => lis.map((li) => ({...li.dataset})));
  const hit = found.find((x) => x.key === String(seedKey));
  check(step3, 'search lists the node searched', !!hit, seedKey, found.slice(0, 5).map((x) => x.key));
  check(step3, 'result degree equals the API', hit && Number(hit.degree) === seedDegree, seedDegree, hit && hit.degree);
  await shot(page, 'search');

  // 4. Open it: one node drawn, the side panel with its degree and relationships.
  const step4 = 'open';
  await page.click('#graph-clear');
  await page.fill('#kg-max-nodes', '100000');
  await act(() => page.click(`#search-results li[data-key="${String(seedKey).replace(/"/g, '\\"')}"]`));
  await page.waitForSelector('#side-panel[data-state="ready"]', {state: 'attached'});
  const g4 = await data('#graph');
  check(step4, 'one node drawn', g4.nodes === '1', '1', g4.nodes);
  const panel = await data('#side-panel');
  check(step4, 'side panel degree equals the API', Number(panel.degree) === seedDegree, seedDegree, panel.degree);
  const panelEdges = await page.$$eval('#panel-edges li', (l) => l.length);
  check(step4, 'side panel lists its relationships', panelEdges === Math.min(seedDegree, 200), Math.min(seedDegree, 200), panelEdges);
  await shot(page, 'open');

  // 5. Expand one step by double-clicking the node; compare with the API's neighbourhood.
  const step5 = 'expand-step';
  await page.waitForTimeout(700); // the camera's move to the opened node (400 ms) ends
  const seedId = (await page.evaluate(() => window.hopdbExplorer.drawnIds()))[0];
  const pos = await page.evaluate((id) => window.hopdbExplorer.nodePagePosition(id), seedId);
  await act(() => page.mouse.dblclick(pos.x, pos.y));
  let g5 = await data('#graph');
  if (g5.source !== 'expand') {
    // the double-click missed (it should not): use the panel's button so the rest can run
    result.notes.push('double-click on the node did not expand it; used the panel button');
    check(step5, 'double-click expands the node', false, 'expand', g5.source);
    await act(() => page.click('#panel-expand'));
    g5 = await data('#graph');
  } else check(step5, 'double-click expands the node', true, 'expand', g5.source);
  const expNodes = 1 + (await rows('MATCH (s {_key: $k})--(m) WHERE m <> s RETURN count(DISTINCT m)', {k: seedKey}))[0][0];
  const expEdgeRows = await rows(
    'MATCH (s {_key: $k})--(m) WITH s, collect(DISTINCT m) AS ms WITH ms + [s] AS ns UNWIND ns AS a MATCH (a)-[r]-(b) WHERE b IN ns RETURN DISTINCT elementId(r), type(r), elementId(startNode(r)), elementId(endNode(r))',
    {k: seedKey},
  );
  const expEdges = new Set(expEdgeRows.map(([id, t, s, e]) => canonicalEdge(t, id, s, e))).size;
  check(step5, 'drawn nodes equal the API (node and its neighbours)', Number(g5.nodes) === expNodes, expNodes, Number(g5.nodes));
  check(step5, 'drawn edges equal the API (edges among them)', Number(g5.edges) === expEdges, expEdges, Number(g5.edges));
  await page.waitForTimeout(1500); // some layout before the picture
  await shot(page, 'expand-step');

  // 6. get_knowledge_graph, not truncated: equals apoc.path.subgraphAll at the same depth.
  const step6 = 'knowledge-graph';
  await page.fill('#kg-depth', '2');
  await page.fill('#kg-max-nodes', '100000');
  await act(() => page.click('#kg-expand'));
  const g6 = await data('#graph');
  const [[sgNodes, sgRels]] = await rows(
    'MATCH (s {_key: $k}) CALL apoc.path.subgraphAll(s, {maxLevel: 2}) YIELD nodes, relationships RETURN [n IN nodes | elementId(n)], [r IN relationships | [elementId(r), type(r), elementId(startNode(r)), elementId(endNode(r))]]',
    {k: seedKey},
  );
  const sgEdges = new Set(sgRels.map(([id, t, s, e]) => canonicalEdge(t, id, s, e))).size;
  check(step6, 'drawn nodes equal apoc.path.subgraphAll (depth 2)', Number(g6.nodes) === sgNodes.length, sgNodes.length, Number(g6.nodes));
  check(step6, 'drawn edges equal apoc.path.subgraphAll (depth 2)', Number(g6.edges) === sgEdges, sgEdges, Number(g6.edges));
  check(step6, 'not marked truncated', g6.truncated === 'false', 'false', g6.truncated);
  await page.waitForTimeout(1500);
  await shot(page, 'knowledge-graph');

  // 7. Algorithms on the drawn graph.
  const step7 = 'algorithms';
  const drawnIds = await page.evaluate(() => window.hopdbExplorer.drawnIds());
  result.perf.algorithms = {};
  for (const [name, q] of [
    ['pagerank', 'CALL hopdb.algo.pageRank() YIELD node, score WITH node WHERE elementId(node) IN $ids RETURN count(*)'],
    ['leiden', 'CALL hopdb.algo.leiden() YIELD node, communityId WITH node WHERE elementId(node) IN $ids RETURN count(*)'],
    ['wcc', 'CALL hopdb.algo.wcc() YIELD node, componentId WITH node WHERE elementId(node) IN $ids RETURN count(*)'],
  ]) {
    await act(() => page.click(`#algo-${name}`));
    const st = await data('#algo-status');
    const [[expected]] = await rows(q, {ids: drawnIds});
    check(step7, `${name}: drawn nodes coloured equal the API's rows for them`, st.algo === name && Number(st.coloured) === expected, expected, st.coloured);
    result.perf.algorithms[name] = {ms: Number(st.ms), nodesColoured: Number(st.coloured)};
    await shot(page, `algo-${name}`);
  }
  await page.click('#algo-reset');

  // 8. The timed expansion: get_knowledge_graph of ~500 nodes (max nodes 500, depth 3).
  const step8 = 'expand-500';
  const candidates = await rows('MATCH (n) RETURN n._key AS key, COUNT { (n)--() } AS d ORDER BY d DESC, key LIMIT 20');
  let seed500 = null;
  let best = null;
  for (const [key] of candidates) {
    const [[reach]] = await rows('MATCH (s {_key: $k}) CALL hopdb.algo.bfs(s, {maxDepth: 3}) YIELD node RETURN count(*)', {k: key});
    if (!best || reach > best.reach) best = {key, reach};
    if (reach >= expandTarget) {
      seed500 = {key, reach};
      break;
    }
  }
  if (!seed500) {
    seed500 = best;
    result.notes.push(
      `no node's depth-3 neighbourhood reaches ${expandTarget} nodes in this graph (largest: ${best.reach}, from ${JSON.stringify(best.key)}); timed that instead`,
    );
  }
  // What the expansion must draw: levels complete until the limit cuts one, that level's nodes
  // taken by degree (ties by key), then the edges among the nodes kept.
  const bfs = await rows(
    'MATCH (s {_key: $k}) CALL hopdb.algo.bfs(s, {maxDepth: 3}) YIELD node, distance RETURN elementId(node), node._key, distance, COUNT { (node)--() }',
    {k: seed500.key},
  );
  const levels = new Map();
  for (const r of bfs) {
    if (!levels.has(r[2])) levels.set(r[2], []);
    levels.get(r[2]).push(r);
  }
  const kept = [];
  let expTruncated = false;
  for (let d = 0; levels.has(d); d++) {
    const lv = levels.get(d).sort((a, b) => b[3] - a[3] || String(a[1]).localeCompare(String(b[1])));
    const room = expandTarget - kept.length;
    if (lv.length > room) expTruncated = true;
    kept.push(...lv.slice(0, room));
    if (kept.length >= expandTarget) {
      if (levels.has(d + 1)) expTruncated = true;
      break;
    }
  }
  const keptEdges = await rows(
    'UNWIND $keys AS k MATCH (n {_key: k})-[r]-(m) WHERE elementId(m) IN $ids RETURN elementId(r), type(r), elementId(startNode(r)), elementId(endNode(r))',
    {keys: kept.map((r) => r[1]), ids: kept.map((r) => r[0])},
  );
  const expEdges500 = new Set(keptEdges.map(([id, t, s, e]) => canonicalEdge(t, id, s, e))).size;
  await page.selectOption('#search-mode', 'key');
  await page.fill('#search-input', String(seed500.key));
  await act(() => page.click('#search-submit'));
  await act(() => page.click(`#search-results li[data-key="${String(seed500.key).replace(/"/g, '\\"')}"]`));
  await page.fill('#kg-depth', '3');
  await page.fill('#kg-max-nodes', String(expandTarget));
  const runs = [];
  for (let i = 0; i < expandRuns; i++) {
    await page.evaluate(() => window.hopdbExplorer.stopLayout());
    await act(() => page.click('#kg-expand'));
    const p = await page.evaluate(() => ({...window.__hopdbPerf}));
    const g = await data('#graph');
    runs.push({
      ms: p.lastExpandMs,
      serverMs: p.lastExpandServerMs,
      queries: p.lastExpandQueries,
      breakdown: p.lastExpandBreakdown,
      nodes: Number(g.nodes),
      edges: Number(g.edges),
      truncated: g.truncated === 'true',
    });
  }
  const last = runs[runs.length - 1];
  check(step8, 'drawn nodes equal the expected expansion', last.nodes === kept.length, kept.length, last.nodes);
  check(step8, 'drawn edges equal the edges among those nodes', last.edges === expEdges500, expEdges500, last.edges);
  check(step8, 'truncation shown as expected', last.truncated === expTruncated, expTruncated, last.truncated);
  const statusText = await page.textContent('#expand-status');
  check(step8, 'status says truncated when it is', !expTruncated || /truncated/.test(statusText), 'truncated', statusText);
  const sorted = runs.map((r) => r.ms).sort((a, b) => a - b);
  result.perf.expand = {
    seed: seed500.key,
    reachableWithinDepth3: seed500.reach,
    maxNodes: expandTarget,
    nodesDrawn: last.nodes,
    edgesDrawn: last.edges,
    truncated: last.truncated,
    runs,
    firstMs: runs[0].ms,
    medianMs: sorted[Math.floor(sorted.length / 2)],
    minMs: sorted[0],
  };
  result.perf.lastExpandMs = last.ms;
  result.perf.lastExpandNodes = last.nodes;
  await page.waitForTimeout(2000);
  await shot(page, 'expand-500');

  // 9. A Cypher query returning nodes and relationships: drawn as a graph.
  const step9 = 'query-graph';
  const qGraph = 'MATCH (n {_key: $key})-[r]-(m)\nRETURN n, r, m\nLIMIT 40';
  await setEditor(qGraph);
  await page.fill('#query-params', JSON.stringify({key: seedKey}));
  await page.click('#cypher-editor .cm-content');
  await act(() => page.keyboard.press('Control+Enter')); // Ctrl-Enter in the editor runs it
  const apiGraph = await api(qGraph, {key: seedKey});
  const expG = graphOf(apiGraph.data.values);
  const g9 = await data('#graph');
  check(step9, 'drawn nodes equal the distinct nodes the API returned', Number(g9.nodes) === expG.nodes, expG.nodes, Number(g9.nodes));
  check(step9, 'drawn edges equal the distinct relationships the API returned', Number(g9.edges) === expG.edges, expG.edges, Number(g9.edges));
  check(step9, 'graph view shown', (await page.getAttribute('#result-area', 'data-view')) === 'graph', 'graph', await page.getAttribute('#result-area', 'data-view'));
  const t9 = await data('#result-table');
  check(step9, 'table rows equal the API rows', Number(t9.rows) === apiGraph.data.values.length, apiGraph.data.values.length, Number(t9.rows));
  await page.waitForTimeout(1200);
  await shot(page, 'query-graph');

  // 10. A query returning a table.
  const step10 = 'query-table';
  const qTable = 'MATCH (n)\nRETURN labels(n)[0] AS label, count(*) AS nodes\nORDER BY nodes DESC, label';
  await setEditor(qTable);
  await page.fill('#query-params', '');
  await act(() => page.click('#run-query'));
  const apiTable = (await api(qTable)).data;
  const t10 = await data('#result-table');
  const trs = await page.$$eval('#result-table tbody tr', (l) => l.length);
  const ths = await page.$$eval('#result-table thead th', (l) => l.map((x) => x.textContent));
  const firstRow = await page.$$eval('#result-table tbody tr:first-child td', (l) => l.map((x) => x.textContent));
  check(step10, 'table rows equal the API rows', Number(t10.rows) === apiTable.values.length && trs === apiTable.values.length, apiTable.values.length, {attr: Number(t10.rows), tr: trs});
  check(step10, 'columns equal the API fields', JSON.stringify(ths) === JSON.stringify(apiTable.fields), apiTable.fields, ths);
  check(step10, 'first row equals the API', JSON.stringify(firstRow) === JSON.stringify(apiTable.values[0].map((v) => (v === null ? 'null' : String(v)))), apiTable.values[0], firstRow);
  check(step10, 'table view shown', (await page.getAttribute('#result-area', 'data-view')) === 'table', 'table', await page.getAttribute('#result-area', 'data-view'));
  await shot(page, 'query-table');

  // 11. EXPLAIN and PROFILE: the plan tree has the operators the API's plan has.
  const step11 = 'plan';
  for (const kind of ['EXPLAIN', 'PROFILE']) {
    const q = `${kind} MATCH (n {_key: $key})-[r]-(m)\nRETURN m._key AS key\nLIMIT 10`;
    await setEditor(q);
    await page.fill('#query-params', JSON.stringify({key: seedKey}));
    await act(() => page.click('#run-query'));
    const body = await api(q, {key: seedKey});
    const plan = kind === 'EXPLAIN' ? body.queryPlan : body.profiledQueryPlan || body.queryPlan;
    const d = await data('#plan-tree');
    const boxes = await page.$$eval('#plan-tree .plan-node', (l) => l.length);
    if (plan) {
      const n = countOperators(plan);
      check(step11, `${kind}: plan tree drawn with the API's ${n} operators`, d.status === 'ok' && Number(d.operators) === n && boxes === n, n, {status: d.status, operators: d.operators, boxes});
    } else {
      result.notes.push(`${kind}: the server returned no ${kind === 'EXPLAIN' ? 'queryPlan' : 'profiledQueryPlan'}; the page says so`);
      check(step11, `${kind}: no plan from the server, and the page says so`, d.status === 'absent' && boxes === 0, 'absent', d.status);
    }
    check(step11, `${kind}: plan view shown`, (await page.getAttribute('#result-area', 'data-view')) === 'plan', 'plan', await page.getAttribute('#result-area', 'data-view'));
    await shot(page, `plan-${kind.toLowerCase()}`);
  }

  // 12. A bad query: the error's code, message and line/column, and the mark in the editor.
  const step12 = 'error';
  const bad = 'MATCH (n)\nRETURN n.foo +\nLIMIT 3';
  await setEditor(bad);
  await page.fill('#query-params', '');
  await act(() => page.click('#run-query'));
  const apiErr = await apiError(bad);
  const apiPos = parsePosition(apiErr.error && apiErr.error.message);
  const e12 = await data('#error');
  check(step12, 'error shown', await page.isVisible('#error'), true, await page.isVisible('#error'));
  check(step12, 'error code equals the API', e12.code === (apiErr.error && apiErr.error.code), apiErr.error && apiErr.error.code, e12.code);
  check(step12, 'the API gives a line and column', !!apiPos, 'line/column', apiErr.error && apiErr.error.message);
  check(step12, 'line and column equal the API', apiPos && Number(e12.line) === apiPos.line && Number(e12.column) === apiPos.column, apiPos, {line: e12.line, column: e12.column});
  const posText = (await page.textContent('#error .error-position').catch(() => '')) || '';
  check(step12, 'line and column printed', apiPos && posText.includes(`line ${apiPos.line}, column ${apiPos.column}`), apiPos && `line ${apiPos.line}, column ${apiPos.column}`, posText);
  const marks = await page.$$eval('#cypher-editor [data-error-mark]', (l) => l.length);
  check(step12, 'position marked in the editor', marks > 0, '>0', marks);
  await shot(page, 'error');

  // 13. The store page.
  const step13 = 'store';
  await act(() => page.click('#tab-store'));
  await page.waitForSelector('#store-page[data-state="ready"]', {state: 'attached'});
  check(step13, 'store page shown', await page.isVisible('#store-page'), true, await page.isVisible('#store-page'));
  const metrics = parseMetrics(await (await fetch(`${origin}/metrics`)).text());
  const sc = await data('#store-counts');
  for (const [attr, name] of [['nodes', 'hopdb_store_nodes'], ['relationships', 'hopdb_store_relationships']]) {
    const want = metrics.has(name) ? String(metrics.get(name)) : '';
    check(step13, `${attr} equal /metrics ${name}`, sc[attr] === want, want, sc[attr]);
  }
  const [[schemaNodes, schemaRels]] = await rows('CALL db.schema.visualization()');
  const labelRows = await page.$$eval('#store-labels tbody tr', (l) => l.map((x) => ({label: x.dataset.label, count: x.dataset.count})));
  check(step13, 'one row per label', labelRows.length === schemaNodes.length, schemaNodes.length, labelRows.length);
  let labelsOk = true;
  const labelMismatch = [];
  for (const r of labelRows.slice(0, 25)) {
    const [[c]] = await rows(`MATCH (n:\`${r.label.replace(/`/g, '``')}\`) RETURN count(n)`);
    if (Number(r.count) !== c) {
      labelsOk = false;
      labelMismatch.push({label: r.label, page: r.count, api: c});
    }
  }
  check(step13, 'label counts equal MATCH (n:Label) RETURN count(n)', labelsOk, 'equal', labelMismatch);
  const typeRows = await page.$$eval('#store-types tbody tr', (l) => l.map((x) => ({type: x.dataset.type, count: x.dataset.count})));
  const typesOk = typeRows.length === schemaRels.length && typeRows.every((r) => schemaRels.some((s) => s.name === r.type && String(s.count) === r.count));
  check(step13, 'type counts equal db.schema.visualization()', typesOk, schemaRels, typeRows);
  const sizeRows = await page.$$eval('#store-sizes tr[data-metric]', (l) => l.map((x) => ({metric: x.dataset.metric, value: x.dataset.value})));
  const sizesOk = sizeRows.length > 0 && sizeRows.every((r) => (r.value === 'n/a') === !metrics.has(r.metric));
  check(step13, 'sizes shown for the series /metrics has, n/a for the others', sizesOk, 'consistent', sizeRows);
  const degRows = await rows('MATCH (n) WITH COUNT { (n)--() } AS d RETURN d, count(*) AS c ORDER BY d');
  const wantPoints = degRows.filter(([d, c]) => d > 0 && c > 0).length;
  const chartPoints = await page.getAttribute('#degree-chart', 'data-points');
  check(step13, 'degree chart has a point per degree > 0', Number(chartPoints) === wantPoints, wantPoints, Number(chartPoints));
  // Cache hit rates: `hopdb serve` counts block- and row-cache lookups on a store on disk.
  for (const [metric, prefix] of [['block-cache-hit-rate', 'hopdb_rocksdb_block_cache'], ['row-cache-hit-rate', 'hopdb_rocksdb_row_cache']]) {
    const counted = metrics.has(`${prefix}_hits_total`) && metrics.get(`${prefix}_hits_total`) + metrics.get(`${prefix}_misses_total`) > 0;
    check(step13, `/metrics counts ${prefix} lookups`, counted, 'hits + misses > 0', [metrics.get(`${prefix}_hits_total`), metrics.get(`${prefix}_misses_total`)]);
    const shown = (await page.textContent(`#store-caches tr[data-metric="${metric}"] td`).catch(() => '')) || '';
    check(step13, `${metric} shown as a rate with its counts`, /^\d+(\.\d)? % \([\d,]+ hits, [\d,]+ misses\)$/.test(shown.trim()), 'N.N % (H hits, M misses)', shown);
  }
  // Benchmark charts: the figures equal the server's listing, and each image decoded.
  const chartIndex = await (await fetch(`${origin}/browser/charts/index.json`, {headers: {Authorization: auth}})).json();
  const figures = await page.$$eval('#benchmark-charts figure.bench-chart', (l) => l.map((f) => ({path: f.dataset.path, width: f.querySelector('img') ? f.querySelector('img').naturalWidth : 0})));
  check(step13, 'one figure per chart the server lists', figures.length === chartIndex.charts.length, chartIndex.charts.map((c) => c.path), figures.map((f) => f.path));
  check(step13, 'every chart image decoded', figures.every((f) => f.width > 0), 'naturalWidth > 0', figures);
  if (!chartIndex.charts.length) {
    const note = (await page.textContent('#benchmark-charts').catch(() => '')) || '';
    check(step13, 'without charts the section says how to add them', note.includes('--charts'), '--charts', note);
  }
  await shot(page, 'store', {fullPage: true});

  check('page', 'no uncaught errors in the page', result.pageErrors.length === 0, [], result.pageErrors);
  await browser.close();
  browser = null;
} catch (e) {
  result.error = String(e && e.stack ? e.stack : e);
  console.error(`error: ${result.error}`);
  failed++;
  if (browser) await browser.close().catch(() => {});
  await finish(1);
}

console.log('\nmeasured:');
console.log(`  first paint             ${fmt(result.perf.firstPaintMs)} ms (${result.perf.firstPaintSource || 'n/a'}; first contentful paint ${fmt(result.perf.firstContentfulPaintMs)} ms; target < 1000 ms)`);
if (result.perf.expand) {
  const x = result.perf.expand;
  console.log(
    `  expand ${x.nodesDrawn} nodes / ${x.edgesDrawn} edges  median ${fmt(x.medianMs)} ms, first ${fmt(x.firstMs)} ms, min ${fmt(x.minMs)} ms over ${x.runs.length} runs (target < 300 ms; seed ${JSON.stringify(x.seed)})`,
  );
}
function fmt(v) {
  return v == null ? 'n/a' : Math.round(v);
}
await finish(0);
