// The store page: counts by label and type, size on disk by part, caches and memtable state
// from /metrics, the query latency histogram, and a log-log degree distribution.

import {runQuery, fetchMetrics} from './api.js';
import {parsePrometheus, metric, histogram} from './metrics.js';
import {h, fmtBytes, fmtNum, fmtSeconds, fmtMs} from './util.js';
import {schema, labelColour} from './model.js';

// Hook for the latest benchmark charts. HopDB serves no chart endpoint today, so the store page
// shows none and asks for none. To show them, serve a JSON document and name its URL in
// index.html as <meta name="hopdb-benchmark-charts" content="URL">; its shape:
// {"charts": [{"title", "unit", "xLabel", "log": false, "series": [{"name", "points": [[x, y], ...]}]}]}
export function benchmarkChartsUrl() {
  const meta = document.querySelector('meta[name="hopdb-benchmark-charts"]');
  return meta && meta.content ? meta.content : null;
}

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
  const bcHits = get('hopdb_rocksdb_block_cache_hits_total') ?? get('hopdb_rocksdb_block_cache_hit_total');
  const bcMisses = get('hopdb_rocksdb_block_cache_misses_total') ?? get('hopdb_rocksdb_block_cache_miss_total');
  const bcRate = bcHits != null && bcMisses != null && bcHits + bcMisses > 0 ? bcHits / (bcHits + bcMisses) : null;
  const compaction = [...m.keys()].filter((k) => /compaction/i.test(k));
  const memtableSeries = [...m.keys()].filter((k) => /memtable|immutable|flush/i.test(k) && k !== 'hopdb_rocksdb_memtable_bytes');
  const pct = (x) => `${(100 * x).toFixed(1)} %`;
  grid.append(
    section(
      'store-caches',
      'Caches, memtables, compaction',
      kv([
        ['Plan cache hit rate', planRate == null ? 'n/a' : `${pct(planRate)} (${fmtNum(planHits)} hits, ${fmtNum(planMisses)} misses)`, {dataset: {metric: 'plan-cache-hit-rate'}}],
        ['Plan cache entries', na(get('hopdb_plan_cache_entries'), fmtNum)],
        ['Block cache hit rate', bcRate == null ? 'n/a' : pct(bcRate), {dataset: {metric: 'block-cache-hit-rate'}}],
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

  // Benchmark charts (hook; hidden when there is nothing to show).
  const bench = section('benchmark-charts', 'Latest benchmarks');
  bench.hidden = true;
  grid.append(bench);
  loadBenchmarkCharts(bench);

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

/**
 * A chart of [x, y] points: log-log with decade ticks (log: true; x, y > 0) or linear.
 * With series ([{name, points}]) the points of each are joined by a line.
 */
export function chart(points, {xLabel, yLabel, id, width = 460, height = 300, series, log = true} = {}) {
  const all = series || [{name: '', points}];
  const valid = ([x, y]) => Number.isFinite(x) && Number.isFinite(y) && (!log || (x > 0 && y > 0));
  const ok = all.flatMap((sr) => (sr.points || []).filter(valid));
  const svg = s('svg', {viewBox: `0 0 ${width} ${height}`, class: 'chart', role: 'img'});
  if (id) svg.id = id;
  svg.dataset.points = String(ok.length);
  if (!ok.length) {
    svg.append(s('text', {x: width / 2, y: height / 2, 'text-anchor': 'middle'}, 'no data'));
    return svg;
  }
  const pad = {l: 56, r: 12, t: 10, b: 40};
  const f = log ? Math.log10 : (v) => v;
  const fx = ok.map((p) => f(p[0]));
  const fy = ok.map((p) => f(p[1]));
  const ticks = (lo, hi) => {
    if (log) {
      const a = Math.floor(lo);
      const b = Math.max(a + 1, Math.ceil(hi));
      const t = [];
      for (let e = a; e <= b; e++) t.push(e);
      return {lo: a, hi: b, t, label: (e) => fmtNum(10 ** e)};
    }
    if (lo === hi) hi = lo + 1;
    if (lo > 0 && lo < hi / 3) lo = 0;
    const step0 = (hi - lo) / 5;
    const mag = 10 ** Math.floor(Math.log10(step0));
    const step = [1, 2, 5, 10].map((m) => m * mag).find((st) => st >= step0);
    const a = Math.floor(lo / step) * step;
    const b = Math.ceil(hi / step) * step;
    const t = [];
    for (let v = a; v <= b + step / 2; v += step) t.push(v);
    return {lo: a, hi: b, t, label: (v) => fmtNum(Math.round(v * 1000) / 1000)};
  };
  const tx = ticks(Math.min(...fx), Math.max(...fx));
  const ty = ticks(Math.min(...fy), Math.max(...fy));
  const X = (v) => pad.l + ((f(v) - tx.lo) / (tx.hi - tx.lo)) * (width - pad.l - pad.r);
  const Y = (v) => height - pad.b - ((f(v) - ty.lo) / (ty.hi - ty.lo)) * (height - pad.t - pad.b);
  const inv = (e) => (log ? 10 ** e : e);
  const g = s('g', {class: 'axes'});
  for (const e of tx.t) {
    const x = X(inv(e));
    g.append(s('line', {x1: x, x2: x, y1: pad.t, y2: height - pad.b, class: 'grid'}));
    g.append(s('text', {x, y: height - pad.b + 16, 'text-anchor': 'middle'}, tx.label(e)));
  }
  for (const e of ty.t) {
    const y = Y(inv(e));
    g.append(s('line', {x1: pad.l, x2: width - pad.r, y1: y, y2: y, class: 'grid'}));
    g.append(s('text', {x: pad.l - 6, y: y + 4, 'text-anchor': 'end'}, ty.label(e)));
  }
  const midY = (pad.t + height - pad.b) / 2;
  g.append(s('text', {x: (pad.l + width - pad.r) / 2, y: height - 6, 'text-anchor': 'middle', class: 'axis-label'}, xLabel || ''));
  g.append(s('text', {x: 12, y: midY, 'text-anchor': 'middle', class: 'axis-label', transform: `rotate(-90 12 ${midY})`}, yLabel || ''));
  svg.append(g);
  const colours = ['#4e79a7', '#f28e2b', '#e15759', '#59a14f', '#b07aa1', '#76b7b2'];
  all.forEach((sr, i) => {
    const p = (sr.points || []).filter(valid);
    const c = colours[i % colours.length];
    if (series) svg.append(s('polyline', {points: p.map(([x, y]) => `${X(x)},${Y(y)}`).join(' '), fill: 'none', stroke: c, 'stroke-width': 1.5}));
    for (const [x, y] of p) {
      svg.append(s('circle', {cx: X(x), cy: Y(y), r: 3, fill: c}, s('title', {}, `${sr.name ? sr.name + ': ' : ''}${fmtNum(x)} → ${fmtNum(y)}`)));
    }
  });
  if (series && series.length > 1) {
    const lg = s('g', {class: 'legend'});
    series.forEach((sr, i) => {
      const y = pad.t + 12 + i * 14;
      lg.append(s('rect', {x: pad.l + 8, y: y - 8, width: 10, height: 10, fill: colours[i % colours.length]}));
      lg.append(s('text', {x: pad.l + 22, y}, sr.name || ''));
    });
    svg.append(lg);
  }
  return svg;
}

function degreeChart(pts) {
  return chart(pts, {xLabel: 'degree', yLabel: 'nodes', id: 'degree-chart', log: true});
}

/** Fetches the benchmark charts (when a URL is configured) and draws them; else the section stays hidden. */
export async function loadBenchmarkCharts(sectionEl) {
  const url = benchmarkChartsUrl();
  if (!url) return;
  try {
    const resp = await fetch(url, {credentials: 'omit'});
    if (!resp.ok) return;
    const data = await resp.json();
    if (!data || !Array.isArray(data.charts) || !data.charts.length) return;
    for (const c of data.charts) {
      sectionEl.append(h('h3', c.title || ''), chart(null, {series: c.series || [], xLabel: c.xLabel || '', yLabel: c.unit || c.yLabel || '', log: !!c.log}));
    }
    sectionEl.hidden = false;
  } catch (_) {
    /* no charts: the section stays hidden */
  }
}
