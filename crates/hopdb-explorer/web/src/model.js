// What the page knows of the graph's schema, and how query values become nodes and edges.

export const schema = {
  labels: [],
  types: [],
  propertyKeys: [],
  labelCounts: new Map(),
  labelRank: new Map(), // label -> rank by node count (for colours)
  typeCounts: new Map(),
  // Relationship types whose relationships are undirected. HopDB lists an undirected
  // relationship from both of its ends, each time with its own elementId and with start and
  // end swapped, so the page merges the two by (type, unordered pair of ends).
  undirectedTypes: new Set(),
  fulltextIndexes: [], // [{name, labels, properties}]
};

export function isNode(v) {
  return v && typeof v === 'object' && !Array.isArray(v) && typeof v.elementId === 'string' && Array.isArray(v.labels);
}

export function isRel(v) {
  return (
    v &&
    typeof v === 'object' &&
    !Array.isArray(v) &&
    typeof v.elementId === 'string' &&
    typeof v.type === 'string' &&
    'startNodeElementId' in v
  );
}

/** A path: nodes and relationships alternating, starting and ending with a node. */
export function isPath(v) {
  if (!Array.isArray(v) || v.length < 1 || v.length % 2 === 0) return false;
  for (let i = 0; i < v.length; i++) {
    if (i % 2 === 0 ? !isNode(v[i]) : !isRel(v[i])) return false;
  }
  return v.length > 1 || false;
}

/** The key under which an edge is drawn: one per relationship, undirected ones merged. */
export function edgeKey(type, elementId, start, end) {
  if (schema.undirectedTypes.has(type)) {
    const [a, b] = compareIds(start, end) <= 0 ? [start, end] : [end, start];
    return `u|${type}|${a}|${b}`;
  }
  return elementId;
}

function compareIds(a, b) {
  // Node element ids are decimal numbers in HopDB; compare them numerically when they are.
  const na = Number(a);
  const nb = Number(b);
  if (Number.isFinite(na) && Number.isFinite(nb)) return na - nb;
  return a < b ? -1 : a > b ? 1 : 0;
}

export function relWeight(props) {
  if (!props) return null;
  const w = props.weight;
  return typeof w === 'number' && Number.isFinite(w) ? w : null;
}

/**
 * Collects the nodes and relationships found anywhere in a result's rows (nodes,
 * relationships, paths, lists and maps of them). Returns {nodes: Map, rels: Map} keyed by
 * elementId and by edgeKey.
 */
export function extractGraph(values) {
  const nodes = new Map();
  const rels = new Map();
  const visit = (v, depth) => {
    if (v == null || typeof v !== 'object' || depth > 6) return;
    if (isNode(v)) {
      if (!nodes.has(v.elementId)) nodes.set(v.elementId, v);
      return;
    }
    if (isRel(v)) {
      const k = edgeKey(v.type, v.elementId, v.startNodeElementId, v.endNodeElementId);
      if (!rels.has(k)) rels.set(k, v);
      return;
    }
    if (Array.isArray(v)) {
      for (const x of v) visit(x, depth + 1);
      return;
    }
    for (const x of Object.values(v)) visit(x, depth + 1);
  };
  for (const row of values) visit(row, 0);
  return {nodes, rels};
}

/** True when a value (or anything inside it) is a node, relationship or path. */
export function holdsGraph(values) {
  const {nodes, rels} = extractGraph(values.slice(0, 2000));
  return nodes.size > 0 || rels.size > 0;
}

// A fixed palette: Tableau 10 first (the most common labels and communities get these), then
// darker and lighter distinct hues.
export const PALETTE = [
  '#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#edc948', '#b07aa1', '#ff9da7',
  '#9c755f', '#bab0ac', '#17becf', '#bcbd22', '#393b79', '#637939', '#8c6d31', '#843c39',
  '#7b4173', '#d6616b', '#6b6ecf', '#e7ba52', '#31a354', '#3182bd', '#fd8d3c', '#969696',
  '#9e9ac8', '#74c476', '#e6550d', '#a55194', '#5254a3', '#8ca252',
];

const labelColours = new Map();

/** Colour of a node by its first label: labels ranked by node count get the palette in order. */
export function labelColour(labels) {
  const label = labels && labels.length ? labels[0] : '';
  let c = labelColours.get(label);
  if (!c) {
    if (!label) c = '#999999';
    else {
      const i = schema.labelRank.has(label) ? schema.labelRank.get(label) : schema.labels.length + (hash(label) % PALETTE.length);
      c = PALETTE[i % PALETTE.length];
    }
    labelColours.set(label, c);
  }
  return c;
}

export function resetLabelColours() {
  labelColours.clear();
}

export function hash(s) {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 16777619);
  }
  return h >>> 0;
}

/** A colour on a perceptual ramp (viridis-like) for t in [0, 1]. */
export function rampColour(t) {
  const stops = [
    [68, 1, 84],
    [59, 82, 139],
    [33, 145, 140],
    [94, 201, 98],
    [253, 231, 37],
  ];
  const x = Math.max(0, Math.min(1, t)) * (stops.length - 1);
  const i = Math.min(stops.length - 2, Math.floor(x));
  const f = x - i;
  const c = stops[i].map((v, j) => Math.round(v + (stops[i + 1][j] - v) * f));
  return `#${c.map((v) => v.toString(16).padStart(2, '0')).join('')}`;
}

export function nodeCaption(properties, key) {
  if (key != null && key !== '') return String(key);
  if (!properties) return '';
  for (const p of ['name', 'title', 'entity_id', 'id', 'label']) {
    if (properties[p] != null && typeof properties[p] !== 'object') return String(properties[p]);
  }
  return '';
}
