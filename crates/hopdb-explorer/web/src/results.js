// Query results as a table, and EXPLAIN / PROFILE plans as a tree of nested boxes.

import {h, truncate, fmtNum} from './util.js';
import {isNode, isRel, isPath, nodeCaption} from './model.js';

export const TABLE_ROW_LIMIT = 5000;

function nodeChip(n) {
  const cap = nodeCaption(n.properties, null) || `#${n.elementId}`;
  return h('span.chip.node-chip', {title: JSON.stringify(n.properties || {}, null, 1).slice(0, 2000)}, `(${n.labels.map((l) => ':' + l).join('')} ${truncate(cap, 40)})`);
}

function relChip(r) {
  return h('span.chip.rel-chip', {title: JSON.stringify(r.properties || {}, null, 1).slice(0, 2000)}, `[:${r.type}]`);
}

function cell(v) {
  if (v === null || v === undefined) return h('span.null', 'null');
  if (isNode(v)) return nodeChip(v);
  if (isRel(v)) return relChip(v);
  if (isPath(v)) {
    const parts = [];
    for (let i = 0; i < v.length; i++) {
      if (i % 2 === 0) parts.push(nodeChip(v[i]));
      else {
        const r = v[i];
        const fwd = r.startNodeElementId === v[i - 1].elementId;
        parts.push(h('span.arrow', fwd ? '-' : '<-'), relChip(r), h('span.arrow', fwd ? '->' : '-'));
      }
    }
    return h('span.path', parts);
  }
  if (typeof v === 'object') return h('code', truncate(JSON.stringify(v), 400));
  if (typeof v === 'string') return truncate(v, 400);
  return String(v);
}

export function renderTable(el, {fields, values, ms}) {
  el.textContent = '';
  el.dataset.rows = String(values.length);
  el.dataset.columns = String(fields.length);
  const shown = values.slice(0, TABLE_ROW_LIMIT);
  const table = h(
    'table',
    h('thead', h('tr', fields.map((f) => h('th', f)))),
    h('tbody', shown.map((row) => h('tr', row.map((v) => h('td', cell(v)))))),
  );
  el.append(
    h('div.result-meta', `${fmtNum(values.length)} row${values.length === 1 ? '' : 's'}`, ms != null ? ` in ${Math.round(ms)} ms` : '', values.length > shown.length ? ` (showing the first ${shown.length})` : ''),
    fields.length ? table : h('div.empty', 'The statement returned no columns.'),
  );
}

/** Counts the operators of a plan. */
export function countOperators(plan) {
  if (!plan) return 0;
  return 1 + (plan.children || []).reduce((a, c) => a + countOperators(c), 0);
}

const BORING = new Set(['Details', 'EstimatedRows', 'planner', 'planner-impl', 'planner-version', 'runtime', 'runtime-impl', 'runtime-version', 'version', 'Order']);

function opBox(op, profiled) {
  const args = op.arguments || {};
  const stats = [];
  if (args.EstimatedRows != null) stats.push(`est. ${fmtNum(Math.round(Number(args.EstimatedRows) * 10) / 10)} rows`);
  if (profiled) {
    if (op.records != null || op.rows != null) stats.push(`${fmtNum(op.records ?? op.rows)} rows`);
    if (op.dbHits != null) stats.push(`${fmtNum(op.dbHits)} db hits`);
    if (op.time != null) stats.push(`${(Number(op.time) / 1e6).toFixed(3)} ms`);
    if (op.pageCacheHits != null) stats.push(`${fmtNum(op.pageCacheHits)} cache hits`);
  }
  const details = args.Details != null ? String(args.Details) : '';
  const other = Object.entries(args).filter(([k]) => !BORING.has(k));
  const children = op.children || [];
  return h(
    'div.plan-node',
    {dataset: {operator: op.operatorType || '?'}},
    h(
      'div.plan-op',
      h('div.plan-op-name', op.operatorType || '(operator)'),
      details ? h('div.plan-op-details', truncate(details, 300)) : null,
      op.identifiers && op.identifiers.length ? h('div.plan-op-ids', op.identifiers.join(', ')) : null,
      stats.length ? h('div.plan-op-stats', stats.join(' · ')) : null,
      other.length
        ? h('dl.plan-op-args', other.slice(0, 12).flatMap(([k, v]) => [h('dt', k), h('dd', truncate(typeof v === 'object' ? JSON.stringify(v) : String(v), 200))]))
        : null,
    ),
    children.length ? h('div.plan-children', children.map((c) => opBox(c, profiled))) : null,
  );
}

/** Draws a plan (or says there is none). status: 'ok' | 'absent'. */
export function renderPlan(el, plan, {profiled = false, statementKind = ''} = {}) {
  el.textContent = '';
  if (!plan) {
    el.dataset.status = 'absent';
    el.dataset.operators = '0';
    el.append(
      h('div.empty', `The server returned no ${profiled ? 'profiledQueryPlan' : 'queryPlan'} for this ${statementKind || 'statement'}.`),
    );
    return;
  }
  el.dataset.status = 'ok';
  el.dataset.operators = String(countOperators(plan));
  el.dataset.profiled = String(profiled);
  el.append(h('div.result-meta', `${profiled ? 'PROFILE' : 'EXPLAIN'}: ${countOperators(plan)} operators`), h('div.plan-root', opBox(plan, profiled)));
}

export function clearPlan(el) {
  el.textContent = '';
  el.dataset.status = 'none';
  el.dataset.operators = '0';
}
