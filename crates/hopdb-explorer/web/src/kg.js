// Neighbourhood expansion: one step from a node, or LightRAG's get_knowledge_graph (breadth
// first from a start node up to a depth, at most N nodes, higher-degree nodes first when the
// limit cuts a level, is_truncated reported). One Cypher query per BFS level, starting from
// node keys (a key lookup is HopDB's fastest seek), plus one to fetch the edges among the
// last level's nodes, so the drawn graph is the subgraph the collected nodes induce.

import {runQuery} from './api.js';
import {edgeKey, schema} from './model.js';

// A row per relationship of the given nodes: its start node (n), the relationship, and the
// other end (m) with its labels and degree (for sizing and for choosing which nodes to keep).
export const LEVEL_QUERY =
  'UNWIND $keys AS k MATCH (n {_key: k})-[r]-(m) ' +
  'RETURN elementId(n) AS sid, elementId(r) AS rid, type(r) AS type, r.weight AS weight, ' +
  'startNode(r) = n AS out, elementId(m) AS mid, m._key AS mkey, labels(m) AS mlabels, ' +
  'COUNT { (m)--() } AS mdegree';

// The relationships from the given nodes to nodes in a set (element ids).
export const CONNECT_QUERY =
  'UNWIND $keys AS k MATCH (n {_key: k})-[r]-(m) WHERE elementId(m) IN $ids ' +
  'RETURN elementId(n) AS sid, elementId(r) AS rid, type(r) AS type, r.weight AS weight, ' +
  'startNode(r) = n AS out, elementId(m) AS mid';

export const NODE_QUERY =
  'MATCH (n {_key: $key}) RETURN elementId(n) AS id, n._key AS key, labels(n) AS labels, ' +
  'COUNT { (n)--() } AS degree';

export const NODES_BY_ID_QUERY =
  'MATCH (n) WHERE elementId(n) IN $ids RETURN elementId(n) AS id, n._key AS key, ' +
  'labels(n) AS labels, COUNT { (n)--() } AS degree';

// Large key lists are split in two requests run at once: the server answers each request on
// its own worker thread.
const SPLIT_AT = 64;

async function runSplit(query, keys, extra = {}) {
  if (keys.length < SPLIT_AT) return runQuery(query, {keys, ...extra});
  const half = Math.ceil(keys.length / 2);
  const t0 = performance.now();
  const parts = await Promise.all([runQuery(query, {keys: keys.slice(0, half), ...extra}), runQuery(query, {keys: keys.slice(half), ...extra})]);
  return {fields: parts[0].fields, values: parts[0].values.concat(parts[1].values), ms: performance.now() - t0};
}

function edgeFromRow(sid, rid, type, weight, out, mid) {
  const source = out ? sid : mid;
  const target = out ? mid : sid;
  return {
    key: edgeKey(type, rid, source, target),
    source,
    target,
    type,
    weight: typeof weight === 'number' ? weight : null,
    directed: !schema.undirectedTypes.has(type),
  };
}

export async function fetchNodeByKey(key) {
  const r = await runQuery(NODE_QUERY, {key});
  if (!r.values.length) return null;
  const [id, k, labels, degree] = r.values[0];
  return {id, key: k, labels, degree};
}

/** Keys, labels and degrees of nodes known by element id (one scan of the nodes). */
export async function fetchNodesById(ids) {
  if (!ids.length) return [];
  const r = await runQuery(NODES_BY_ID_QUERY, {ids});
  return r.values.map(([id, key, labels, degree]) => ({id, key, labels, degree}));
}

function byDegreeDesc(a, b) {
  return (b.degree || 0) - (a.degree || 0) || String(a.key).localeCompare(String(b.key));
}

/**
 * get_knowledge_graph: returns {nodes, edges, truncated, depth, queries, serverMs}.
 * nodes: [{id, key, labels, degree, depth, near}], edges as addEdges takes them.
 */
export async function knowledgeGraph(startKey, {maxDepth = 3, maxNodes = 1000} = {}) {
  let queries = 0;
  let serverMs = 0;
  const timings = [];
  const timed = (r, what) => {
    queries++;
    serverMs += r.ms;
    timings.push([what, Math.round(r.ms * 10) / 10, r.values.length]);
    return r;
  };
  // The start node and its relationships are asked for at once.
  const [startRes, firstLevel] = await Promise.all([
    runQuery(NODE_QUERY, {key: startKey}),
    maxDepth > 0 && maxNodes > 1 ? runQuery(LEVEL_QUERY, {keys: [startKey]}) : null,
  ]);
  timed(startRes, 'start');
  if (!startRes.values.length) throw new Error(`no node has the key ${JSON.stringify(startKey)}`);
  const [sid0, skey0, slabels0, sdegree0] = startRes.values[0];
  const start = {id: sid0, key: skey0, labels: slabels0, degree: sdegree0};
  const nodes = new Map([[start.id, {...start, depth: 0, near: null}]]);
  const edges = new Map();
  const pending = []; // edges seen while expanding; kept when both ends are collected
  let frontier = [start];
  let truncated = false;
  let depth = 0;
  while (depth < maxDepth && frontier.length && nodes.size < maxNodes) {
    const keyed = frontier.filter((n) => n.key != null);
    const r = depth === 0 && firstLevel ? firstLevel : await runSplit(LEVEL_QUERY, keyed.map((n) => n.key));
    timed(r, `level ${depth + 1}`);
    const candidates = new Map();
    for (const [sid, rid, type, weight, out, mid, mkey, mlabels, mdegree] of r.values) {
      pending.push(edgeFromRow(sid, rid, type, weight, out, mid));
      if (!nodes.has(mid) && !candidates.has(mid)) {
        candidates.set(mid, {id: mid, key: mkey, labels: mlabels, degree: mdegree, depth: depth + 1, near: sid});
      }
    }
    const sorted = [...candidates.values()].sort(byDegreeDesc);
    const room = maxNodes - nodes.size;
    if (sorted.length > room) truncated = true;
    const taken = sorted.slice(0, Math.max(0, room));
    for (const n of taken) nodes.set(n.id, n);
    frontier = taken;
    depth++;
  }
  // The last level was not expanded: fetch the edges among its nodes and to earlier ones.
  if (frontier.length) {
    const keyed = frontier.filter((n) => n.key != null);
    const r = await runSplit(CONNECT_QUERY, keyed.map((n) => n.key), {ids: [...nodes.keys()]});
    timed(r, 'last level edges');
    for (const [sid, rid, type, weight, out, mid] of r.values) pending.push(edgeFromRow(sid, rid, type, weight, out, mid));
  }
  for (const e of pending) {
    if (nodes.has(e.source) && nodes.has(e.target) && !edges.has(e.key)) edges.set(e.key, e);
  }
  // The loop stopped on the node limit before the depth limit: the graph is truncated when a
  // node of the last level has a relationship to a node that was not collected.
  if (!truncated && depth < maxDepth && frontier.length && nodes.size >= maxNodes) {
    const inside = new Map();
    for (const e of edges.values()) {
      inside.set(e.source, (inside.get(e.source) || 0) + 1);
      if (e.target !== e.source) inside.set(e.target, (inside.get(e.target) || 0) + 1);
    }
    truncated = frontier.some((n) => (n.degree || 0) > (inside.get(n.id) || 0));
  }
  return {nodes: [...nodes.values()], edges: [...edges.values()], truncated, depth, queries, serverMs, timings};
}

/**
 * One step from a drawn node: its neighbours (at most limit, higher degree first) and the
 * edges from them to every drawn node. drawnIds: element ids already drawn.
 */
export async function expandStep(node, drawnIds, {limit = 1000} = {}) {
  let queries = 0;
  let serverMs = 0;
  const r = await runQuery(LEVEL_QUERY, {keys: [node.key]});
  queries++;
  serverMs += r.ms;
  const drawn = new Set(drawnIds);
  const candidates = new Map();
  const pending = [];
  for (const [sid, rid, type, weight, out, mid, mkey, mlabels, mdegree] of r.values) {
    pending.push(edgeFromRow(sid, rid, type, weight, out, mid));
    if (!drawn.has(mid) && !candidates.has(mid)) {
      candidates.set(mid, {id: mid, key: mkey, labels: mlabels, degree: mdegree, near: sid});
    }
  }
  const sorted = [...candidates.values()].sort(byDegreeDesc);
  const truncated = sorted.length > limit;
  const taken = sorted.slice(0, limit);
  const all = new Set([...drawn, ...taken.map((n) => n.id), node.id]);
  if (taken.length) {
    const c = await runQuery(CONNECT_QUERY, {keys: taken.filter((n) => n.key != null).map((n) => n.key), ids: [...all]});
    queries++;
    serverMs += c.ms;
    for (const [sid, rid, type, weight, out, mid] of c.values) pending.push(edgeFromRow(sid, rid, type, weight, out, mid));
  }
  const edges = new Map();
  for (const e of pending) if (all.has(e.source) && all.has(e.target) && !edges.has(e.key)) edges.set(e.key, e);
  return {nodes: taken, edges: [...edges.values()], truncated, total: candidates.size, queries, serverMs};
}
