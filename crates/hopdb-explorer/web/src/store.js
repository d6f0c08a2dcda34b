// The store page: counts by label and type, size on disk by part, caches and memtable state
// from /metrics, the query latency histogram, a log-log degree distribution, and the latest
// benchmark charts when the server has a chart directory (hopdb serve --charts DIR).

import {runQuery, fetchMetrics, fetchWithAuth} from './api.js';
import {parsePrometheus, metric, histogram} from './metrics.js';
import {h, fmtBytes, fmtNum, fmtSeconds, fmtMs} from './util.js';
import {schema, labelColour} from './model.js';

export const CHARTS_INDEX = 'charts/index.json';

export const DEGREE_QUERY = 'MATCH (n) WITH COUNT { (n)--() } AS d RETURN d, count(*) AS c ORDER BY d';

const SIZE_SERIES = [
  ['hopdb_rocksdb_sst_bytes', 'SST files (on disk)'],
  ['hopdb_rocksdb_live_data_bytes', 'Live data in SST files'],
  ['hopdb_rocksdb_wal_bytes', 'Write-ahead log (on disk)'],
  ['hopdb_rocksdb_memtable_bytes', 'Memtables (memory)'],
  ['hopdb_rocksdb_block_cache_usage_bytes', 'Block cache (memory)'],
  ['hopdb_rocksdb_block_cache_pinned_bytes', 'Block cache, pinned (memory)'],
  ['hopdb_rocksdb_table_readers_bytes', 'Table readers (memory)'],
  ['hopdb_key_index_bytes', 'Key index (memory)'],
];

function section(id, title, ...body) {
  return h(`section.store-section#${id}`, h('h2', title), ...body);
}

function kv(rows) {
  return h(
    'table.kv',
    h('tbody', rows.map(([k, v, attrs]) => h('tr', attrs || {}, h('th', k), h('td', v)))),
  );
}

function na(v, f) {
  return v == null ? 'n/a' : f(v);
}

export async function renderStore(el) {
  el.textContent = '';
  el.dataset.state = 'loading';
  const status = h('div.store-status', 'Loading…');
  el.append(h('div.store-head', h('h1', 'Store'), h('button#store-refresh', {type: 'button', onclick: () => renderStore(el)}, 'Refresh'), status));
  const grid = h('div.store-grid');
  el.append(grid);

  const errors = [];
  const [metricsText, schemaRes, degreeRes] = await Promise.all([
    fetchMetrics().catch((e) => (errors.push(`metrics: ${e.message}`), null)),
    runQuery('CALL db.schema.visualization()').catch((e) => (errors.push(`schema: ${e.message}`), null)),
    runQuery(DEGREE_QUERY).catch((e) => (errors.push(`degree distribution: ${e.message}`), null)),
  ]);
  const m = metricsText ? parsePrometheus(metricsText) : new Map();
  const get = (name) => metric(m, name);

  // Counts by label and type.
  let labelCounts = [];
  let typeCounts = [];
  if (schemaRes && schemaRes.values.length) {
    const [nodes, rels] = schemaRes.values[0];
    labelCounts = (nodes || []).map((x) => [x.name, x.count ?? null]);
    typeCounts = (rels || []).map((x) => [x.name, x.count ?? null]);
  }
  if (!labelCounts.length && schema.labels.length) labelCounts = await countEach(schema.labels, 'label');
  if (!typeCounts.length && schema.types.length) typeCounts = await countEach(schema.types, 'type');
  labelCounts.sort((a, b) => (b[1] ?? -1) - (a[1] ?? -1));
  typeCounts.sort((a, b) => (b[1] ?? -1) - (a[1] ?? -1));
  const labelTable = h(
    'table#store-labels.counts',
    h('thead', h('tr', h('th', 'Label'), h('th', 'Nodes'))),
    h(
      'tbody',
      labelCounts.map(([l, c]) =>
        h('tr', {dataset: {label: l, count: c ?? ''}}, h('td', h('span.swatch', {style: {background: labelColour([l])}}), l), h('td.num', na(c, fmtNum))),
      ),
    ),
  );
  const typeTable = h(
    'table#store-types.counts',
    h('thead', h('tr', h('th', 'Type'), h('th', 'Relationships'), h('th', 'Direction'))),
    h(
      'tbody',
      typeCounts.map(([t, c]) =>
        h('tr', {dataset: {type: t, count: c ?? ''}}, h('td', t), h('td.num', na(c, fmtNum)), h('td', schema.undirectedTypes.has(t) ? 'undirected' : 'directed')),
      ),
    ),
  );
  const totalNodes = get('hopdb_store_nodes');
  const totalRels = get('hopdb_store_relationships');
  grid.append(
    section(
      'store-counts',
      'Contents',
      kv([
        ['Nodes', na(totalNodes, fmtNum)],
        ['Relationships', na(totalRels, fmtNum)],
        ['Labels', fmtNum(labelCounts.length)],
        ['Relationship types', fmtNum(typeCounts.length)],
      ]),
      h('h3', 'Nodes by label'),
      h('div.scroll', labelTable),
      h('h3', 'Relationships by type'),
      h('div.scroll', typeTable),
    ),
  );
  const countsEl = grid.querySelector('#store-counts');
  countsEl.dataset.nodes = totalNodes == null ? '' : String(totalNodes);
  countsEl.dataset.relationships = totalRels == null ? '' : String(totalRels);

  // Size by part.
  const sizes = SIZE_SERIES.map(([name, title]) => [name, title, get(name)]);
  const maxSize = Math.max(1, ...sizes.map((s) => s[2] || 0));
  grid.append(
    section(
      'store-sizes',
      'Size by part',
      h(
        'table.bars',
        h(
          'tbody',
          sizes.map(([name, title, v]) =>
            h(
              'tr',
              {dataset: {metric: name, value: v == null ? 'n/a' : String(v)}},
              h('th', {title: name}, title),
              h('td.bar-cell', v == null ? null : h('span.bar', {style: {width: `${Math.max(0.5, (100 * v) / maxSize)}%`}})),
              h('td.num', fmtBytes(v)),
            ),
          ),
        ),
      ),
      kv([['SST files', na(get('hopdb_rocksdb_sst_files'), fmtNum)]]),
    ),
  );

  // Caches, memtables, compaction.
  const planHits = get('hopdb_plan_cache_hits_total');
  const planMisses = get('hopdb_plan_cache_misses_total');
  const planRate = planHits != null && planMisses != null && planHits + planMisses > 0 ? planHits / (planHits + planMisses) : null;
  // Hits and misses since the store was opened: a rate with its counts, n/a before any lookup
  // (or from a server that keeps no cache statistics).
  const rate = (prefix) => {
    const hits = get(`${prefix}_hits_total`);
    const misses = get(`${prefix}_misses_total`);
    if (hits == null || misses == null || hits + misses === 0) return 'n/a';
    return `${pct(hits / (hits + misses))} (${fmtNum(hits)} hits, ${fmtNum(misses)} misses)`;
  };
  const pct = (x) => `${(100 * x).toFixed(1)} %`;
  const compaction = [...m.keys()].filter((k) => /compaction/i.test(k));
  const memtableSeries = [...m.keys()].filter((k) => /memtable|immutable|flush/i.test(k) && k !== 'hopdb_rocksdb_memtable_bytes');
  grid.append(
    section(
      'store-caches',
      'Caches, memtables, compaction',
      kv([
        ['Plan cache hit rate', planRate == null ? 'n/a' : `${pct(planRate)} (${fmtNum(planHits)} hits, ${fmtNum(planMisses)} misses)`, {dataset: {metric: 'plan-cache-hit-rate'}}],
        ['Plan cache entries', na(get('hopdb_plan_cache_entries'), fmtNum)],
        ['Block cache hit rate', rate('hopdb_rocksdb_block_cache'), {dataset: {metric: 'block-cache-hit-rate'}}],
        ['Row cache hit rate', rate('hopdb_rocksdb_row_cache'), {dataset: {metric: 'row-cache-hit-rate'}}],
        ['Block cache in use', fmtBytes(get('hopdb_rocksdb_block_cache_usage_bytes'))],
        ['Memtables', fmtBytes(get('hopdb_rocksdb_memtable_bytes'))],
        ...memtableSeries.map((k) => [k, fmtNum(get(k))]),
        ...(compaction.length ? compaction.map((k) => [k, fmtNum(get(k))]) : [['Compaction', 'n/a', {dataset: {metric: 'compaction'}}]]),
      ]),
    ),
  );

  // Queries and connections.
  const hist = histogram(m, 'hopdb_query_duration_seconds').filter((x) => x.count > 0);
  grid.append(
    section(
      'store-queries',
      'Queries and connections',
      kv([
        ['Bolt connections', `${na(get('hopdb_bolt_connections'), fmtNum)} of ${na(get('hopdb_bolt_max_connections'), fmtNum)}`],
        ['Open transactions', na(get('hopdb_bolt_open_transactions'), fmtNum)],
      ]),
      hist.length
        ? h(
            'table.counts#store-latency',
            h('thead', h('tr', ['Protocol', 'Kind', 'Statements', 'Mean', 'p50', 'p95', 'p99'].map((x) => h('th', x)))),
            h(
              'tbody',
              hist.map((x) =>
                h(
                  'tr',
                  h('td', x.labels.protocol ?? ''),
                  h('td', x.labels.kind ?? ''),
                  h('td.num', fmtNum(x.count)),
                  h('td.num', fmtSeconds(x.sum / x.count)),
                  h('td.num', fmtSeconds(x.p50)),
                  h('td.num', fmtSeconds(x.p95)),
                  h('td.num', fmtSeconds(x.p99)),
                ),
              ),
            ),
          )
        : h('div.empty', metricsText ? 'No statements timed yet.' : 'n/a'),
    ),
  );

  // Degree distribution.
  const degSection = section('store-degree', 'Degree distribution (log-log)');
  grid.append(degSection);
  if (degreeRes) {
    const pts = degreeRes.values.map(([d, c]) => [Number(d), Number(c)]);
    degSection.append(
      degreeChart(pts),
      h('div.result-meta', `${fmtNum(pts.reduce((a, p) => a + p[1], 0))} nodes; ${fmtNum((pts.find((p) => p[0] === 0) || [0, 0])[1])} without relationships (not on a log axis); computed in ${fmtMs(degreeRes.ms)}`),
    );
  } else degSection.append(h('div.empty', 'n/a'));

  // The latest benchmark charts (PNG files of the server's --charts directory).
  const bench = section('benchmark-charts', 'Latest benchmarks');
  grid.append(bench);
  await loadBenchmarkCharts(bench);

  grid.append(
    h('details.store-section.raw-metrics', h('summary', 'All metrics (raw)'), h('pre', metricsText || 'n/a')),
  );

  status.textContent = errors.length ? errors.join('; ') : `Updated ${new Date().toLocaleTimeString()}`;
  el.dataset.state = 'ready';
}

async function countEach(names, kind) {
  const res = [];
  for (const n of names.slice(0, 200)) {
    const name = `\`${n.replace(/`/g, '``')}\``;
    const q = kind === 'label' ? `MATCH (n:${name}) RETURN count(n)` : `MATCH ()-[r:${name}]->() RETURN count(r)`;
    try {
      const r = await runQuery(q);
      const c = r.values[0][0];
      // an undirected relationship is listed from both ends
      res.push([n, kind === 'type' && schema.undirectedTypes.has(n) ? c / 2 : c]);
    } catch (_) {
      res.push([n, null]);
    }
  }
  return res;
}

const SVG_NS = 'http://www.w3.org/2000/svg';
function s(tag, attrs, ...kids) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) el.setAttribute(k, String(v));
  for (const k of kids) if (k) el.append(k instanceof Node ? k : document.createTextNode(String(k)));
  return el;
}

/** A log-log chart of [x, y] points (x, y > 0) with decade ticks. */
export function chart(points, {xLabel, yLabel, id, width = 460, height = 300} = {}) {
  const ok = points.filter(([x, y]) => Number.isFinite(x) && Number.isFinite(y) && x > 0 && y > 0);
  const svg = s('svg', {viewBox: `0 0 ${width} ${height}`, class: 'chart', role: 'img'});
  if (id) svg.id = id;
  svg.dataset.points = String(ok.length);
  if (!ok.length) {
    svg.append(s('text', {x: width / 2, y: height / 2, 'text-anchor': 'middle'}, 'no data'));
    return svg;
  }
  const pad = {l: 56, r: 12, t: 10, b: 40};
  const ticks = (values) => {
    const lo = Math.floor(Math.min(...values));
    const hi = Math.max(lo + 1, Math.ceil(Math.max(...values)));
    const t = [];
    for (let e = lo; e <= hi; e++) t.push(e);
    return {lo, hi, t};
  };
  const tx = ticks(ok.map((p) => Math.log10(p[0])));
  const ty = ticks(ok.map((p) => Math.log10(p[1])));
  const X = (e) => pad.l + ((e - tx.lo) / (tx.hi - tx.lo)) * (width - pad.l - pad.r);
  const Y = (e) => height - pad.b - ((e - ty.lo) / (ty.hi - ty.lo)) * (height - pad.t - pad.b);
  const g = s('g', {class: 'axes'});
  for (const e of tx.t) {
    g.append(s('line', {x1: X(e), x2: X(e), y1: pad.t, y2: height - pad.b, class: 'grid'}));
    g.append(s('text', {x: X(e), y: height - pad.b + 16, 'text-anchor': 'middle'}, fmtNum(10 ** e)));
  }
  for (const e of ty.t) {
    g.append(s('line', {x1: pad.l, x2: width - pad.r, y1: Y(e), y2: Y(e), class: 'grid'}));
    g.append(s('text', {x: pad.l - 6, y: Y(e) + 4, 'text-anchor': 'end'}, fmtNum(10 ** e)));
  }
  const midY = (pad.t + height - pad.b) / 2;
  g.append(s('text', {x: (pad.l + width - pad.r) / 2, y: height - 6, 'text-anchor': 'middle', class: 'axis-label'}, xLabel || ''));
  g.append(s('text', {x: 12, y: midY, 'text-anchor': 'middle', class: 'axis-label', transform: `rotate(-90 12 ${midY})`}, yLabel || ''));
  svg.append(g);
  for (const [x, y] of ok) {
    svg.append(s('circle', {cx: X(Math.log10(x)), cy: Y(Math.log10(y)), r: 3, fill: '#4e79a7'}, s('title', {}, `${fmtNum(x)} → ${fmtNum(y)}`)));
  }
  return svg;
}

function degreeChart(pts) {
  return chart(pts, {xLabel: 'degree', yLabel: 'nodes', id: 'degree-chart'});
}

/** Lists the server's benchmark charts and shows each PNG (fetched with the page's credentials). */
export async function loadBenchmarkCharts(sectionEl) {
  let index;
  try {
    index = await (await fetchWithAuth(CHARTS_INDEX)).json();
  } catch (e) {
    sectionEl.append(h('div.empty', `Cannot list the charts: ${e.message || e}`));
    return;
  }
  const charts = Array.isArray(index.charts) ? index.charts : [];
  sectionEl.dataset.charts = String(charts.length);
  if (!charts.length) {
    sectionEl.append(h('div.empty', index.reason || 'No charts in the chart directory.'));
    return;
  }
  const list = h('div.bench-charts');
  sectionEl.append(list);
  await Promise.all(
    charts.map(async (c) => {
      const when = new Date(c.modified * 1000).toLocaleString();
      const fig = h('figure.bench-chart', {dataset: {path: c.path}}, h('figcaption', `${c.title} (${when})`));
      list.append(fig);
      try {
        const blob = await (await fetchWithAuth(`charts/${c.path}`)).blob();
        const img = h('img', {alt: c.title});
        await new Promise((resolve) => {
          img.onload = img.onerror = resolve;
          img.src = URL.createObjectURL(blob);
        });
        fig.insertBefore(img, fig.firstChild);
      } catch (e) {
        fig.append(h('div.empty', `Cannot load ${c.path}: ${e.message || e}`));
      }
    }),
  );
}
