// The drawn graph: a graphology graph rendered by sigma.js (WebGL), laid out by ForceAtlas2
// in its web worker so the page stays responsive.

import Graph from 'graphology';
import Sigma from 'sigma';
import FA2Layout from 'graphology-layout-forceatlas2/worker';
import forceAtlas2 from 'graphology-layout-forceatlas2';
import {labelColour, PALETTE, rampColour, nodeCaption} from './model.js';

let graph = null;
let renderer = null;
let layout = null;
let layoutTimer = null;
let container = null;
let selected = null;
let hovered = null;
let colouring = {mode: 'label'};
let handlers = {};
let meta = {truncated: false, source: ''};

export function initView(el, h) {
  container = el;
  handlers = h || {};
  graph = new Graph({multi: true, type: 'mixed', allowSelfLoops: true});
  renderer = new Sigma(graph, container, {
    renderEdgeLabels: false,
    labelRenderedSizeThreshold: 9,
    labelDensity: 0.6,
    labelFont: 'system-ui, sans-serif',
    labelSize: 12,
    defaultEdgeColor: '#c8ccd4',
    defaultEdgeType: 'line',
    zIndex: true,
    minEdgeThickness: 0.8,
    minCameraRatio: 0.02,
    maxCameraRatio: 20,
    nodeReducer: (node, data) => {
      const res = {...data};
      if (selected === node) {
        res.highlighted = true;
        res.zIndex = 2;
      }
      if (hovered && hovered !== node && selected !== node) {
        if (!graph.areNeighbors(hovered, node)) {
          res.color = '#e4e6ea';
          res.label = '';
          res.zIndex = 0;
        } else res.zIndex = 1;
      }
      return res;
    },
    edgeReducer: (edge, data) => {
      if (hovered) {
        const [s, t] = graph.extremities(edge);
        if (s !== hovered && t !== hovered) return {...data, hidden: true};
        return {...data, color: '#7b8494', zIndex: 1};
      }
      return data;
    },
  });
  renderer.on('clickNode', ({node}) => handlers.onNodeClick && handlers.onNodeClick(node));
  renderer.on('doubleClickNode', (e) => {
    e.preventSigmaDefault();
    if (handlers.onNodeDoubleClick) handlers.onNodeDoubleClick(e.node);
  });
  renderer.on('clickStage', () => handlers.onStageClick && handlers.onStageClick());
  renderer.on('enterNode', ({node}) => {
    hovered = node;
    container.style.cursor = 'pointer';
    renderer.refresh({skipIndexation: true});
  });
  renderer.on('leaveNode', () => {
    hovered = null;
    container.style.cursor = '';
    renderer.refresh({skipIndexation: true});
  });
  updateAttributes();
  return graph;
}

export function getGraph() {
  return graph;
}

export function getRenderer() {
  return renderer;
}

export function hasNode(id) {
  return graph.hasNode(id);
}

export function nodeData(id) {
  return graph.hasNode(id) ? graph.getNodeAttributes(id) : null;
}

export function nodeIds() {
  return graph.nodes();
}

export function findNodeByKey(key) {
  return graph.findNode((_, a) => a.key === key);
}

let drawing = 0;

/** Changes each time the drawing is cleared (so late answers for an old drawing can be dropped). */
export function drawingId() {
  return drawing;
}

export function clearGraph() {
  drawing++;
  stopLayout();
  graph.clear();
  selected = null;
  hovered = null;
  meta = {truncated: false, source: ''};
  colouring = {mode: 'label'};
  updateAttributes();
}

function degreeSize(deg) {
  return Math.min(20, 2.5 + 1.6 * Math.log2(1 + (deg || 0)));
}

function edgeSize(w) {
  if (w == null) return 0.8;
  return Math.max(0.5, Math.min(5, 0.3 + 0.8 * Math.log2(1 + Math.max(0, w))));
}

/**
 * Adds nodes: [{id, key, labels, degree, properties, near}] (near: a drawn node to place the new
 * one beside). Existing nodes get their known fields updated.
 */
export function addNodes(list) {
  const n0 = graph.order;
  const spread = 10 * Math.sqrt(n0 + list.length + 1);
  for (const n of list) {
    const attrs = {
      key: n.key ?? null,
      labels: n.labels || [],
      degree: n.degree ?? null,
      elementId: n.id,
    };
    if (n.properties) attrs.properties = n.properties;
    if (graph.hasNode(n.id)) {
      const a = graph.getNodeAttributes(n.id);
      if (attrs.key == null) attrs.key = a.key;
      if (attrs.degree == null) attrs.degree = a.degree;
      if (!n.properties && a.properties) attrs.properties = a.properties;
      const label = nodeCaption(attrs.properties, attrs.key) || a.label;
      const size = attrs.degree != null ? degreeSize(attrs.degree) : a.size;
      const color = colouring.mode === 'label' ? labelColour(attrs.labels) : a.color;
      graph.mergeNodeAttributes(n.id, {...attrs, label, size, color});
      continue;
    }
    let x;
    let y;
    if (n.near && graph.hasNode(n.near)) {
      const p = graph.getNodeAttributes(n.near);
      const ang = Math.random() * 2 * Math.PI;
      const r = 2 + Math.random() * 6;
      x = p.x + r * Math.cos(ang);
      y = p.y + r * Math.sin(ang);
    } else {
      const ang = Math.random() * 2 * Math.PI;
      const r = Math.sqrt(Math.random()) * spread;
      x = r * Math.cos(ang);
      y = r * Math.sin(ang);
    }
    graph.addNode(n.id, {
      ...attrs,
      x,
      y,
      size: degreeSize(attrs.degree),
      color: labelColour(attrs.labels),
      label: nodeCaption(attrs.properties, attrs.key) || `#${n.id}`,
    });
  }
}

/** Adds edges: [{key, source, target, type, weight, directed}]; both ends must be drawn. */
export function addEdges(list) {
  let added = 0;
  for (const e of list) {
    if (graph.hasEdge(e.key)) continue;
    if (!graph.hasNode(e.source) || !graph.hasNode(e.target)) continue;
    const attrs = {
      relType: e.type,
      weight: e.weight,
      size: edgeSize(e.weight),
      type: e.directed ? 'arrow' : 'line',
    };
    if (e.directed) graph.addDirectedEdgeWithKey(e.key, e.source, e.target, attrs);
    else graph.addUndirectedEdgeWithKey(e.key, e.source, e.target, attrs);
    added++;
  }
  return added;
}

/** Sizes nodes whose degree is unknown by their drawn degree; re-applies colours; draws. */
export function commit({source, truncated} = {}) {
  if (source !== undefined) meta.source = source;
  if (truncated !== undefined) meta.truncated = truncated;
  // Nodes of unknown degree are sized by their drawn degree (only those: every attribute
  // update costs sigma an event).
  graph.forEachNode((id, a) => {
    if (a.degree == null) {
      const size = degreeSize(graph.degree(id));
      if (size !== a.size) graph.setNodeAttribute(id, 'size', size);
    }
  });
  if (colouring.mode !== 'label') applyColouring();
  updateAttributes();
  stopLayout();
  const t0 = performance.now();
  renderer.refresh();
  const t1 = performance.now();
  // The layout starts once the scene is on screen, so it does not delay the first paint.
  return nextFrame().then(() => {
    const t2 = performance.now();
    startLayout();
    return {refreshMs: t1 - t0, frameMs: t2 - t1};
  });
}

/** Resolves once the browser has painted the next frame (a task queued from rAF runs after it). */
export function nextFrame() {
  return new Promise((resolve) =>
    requestAnimationFrame(() => {
      const ch = new MessageChannel();
      ch.port1.onmessage = () => resolve();
      ch.port2.postMessage(null);
    }),
  );
}

export function removeNode(id) {
  if (graph.hasNode(id)) graph.dropNode(id);
  if (selected === id) selected = null;
  updateAttributes();
}

function updateAttributes() {
  if (!container) return;
  container.dataset.nodes = String(graph ? graph.order : 0);
  container.dataset.edges = String(graph ? graph.size : 0);
  container.dataset.truncated = String(!!meta.truncated);
  container.dataset.source = meta.source || '';
  container.dataset.colouring = colouring.mode;
  container.dataset.layout = layout && layout.isRunning() ? 'running' : 'stopped';
}

export function select(id) {
  selected = id && graph.hasNode(id) ? id : null;
  renderer.refresh({skipIndexation: true});
}

export function focusNode(id) {
  if (!graph.hasNode(id)) return;
  const pos = renderer.getNodeDisplayData(id);
  if (pos) renderer.getCamera().animate({x: pos.x, y: pos.y, ratio: 0.5}, {duration: 400});
}

export function resetCamera(duration = 300) {
  if (duration) renderer.getCamera().animatedReset({duration});
  else renderer.getCamera().setState({x: 0.5, y: 0.5, ratio: 1, angle: 0});
}

// ---- layout -----------------------------------------------------------------

export function startLayout(ms) {
  stopLayout();
  if (graph.order < 2) return;
  const settings = forceAtlas2.inferSettings(graph);
  settings.barnesHutOptimize = graph.order > 600;
  settings.adjustSizes = false;
  settings.edgeWeightInfluence = 0.5;
  layout = new FA2Layout(graph, {settings, getEdgeWeight: 'weight'});
  layout.start();
  updateAttributes();
  const dur = ms || Math.min(8000, 1500 + graph.order * 2);
  layoutTimer = setTimeout(() => stopLayout(), dur);
}

export function stopLayout() {
  if (layoutTimer) clearTimeout(layoutTimer);
  layoutTimer = null;
  if (layout) {
    layout.kill();
    layout = null;
  }
  updateAttributes();
}

export function layoutRunning() {
  return !!(layout && layout.isRunning());
}

// ---- colouring --------------------------------------------------------------

/**
 * mode 'label': by first label; 'category': values is Map id -> category (integer or string);
 * 'ramp': values is Map id -> number (coloured by rank). Nodes without a value are grey.
 */
export function colourBy(mode, values, title) {
  colouring = {mode, values, title};
  applyColouring();
  updateAttributes();
  renderer.refresh({skipIndexation: true});
  return legend();
}

function applyColouring() {
  const {mode, values} = colouring;
  if (mode === 'category') {
    const order = categoryOrder(values);
    graph.forEachNode((id) => {
      const v = values.get(id);
      const i = v === undefined ? -1 : order.get(v);
      graph.setNodeAttribute(id, 'color', i === -1 || i === undefined ? '#cfd3da' : i < PALETTE.length ? PALETTE[i] : '#8d96a3');
    });
  } else if (mode === 'ramp') {
    const sorted = [...values.values()].sort((a, b) => a - b);
    const rank = (v) => {
      let lo = 0;
      let hi = sorted.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (sorted[mid] < v) lo = mid + 1;
        else hi = mid;
      }
      return sorted.length > 1 ? lo / (sorted.length - 1) : 1;
    };
    graph.forEachNode((id) => {
      const v = values.get(id);
      graph.setNodeAttribute(id, 'color', v === undefined ? '#cfd3da' : rampColour(rank(v)));
    });
  } else {
    graph.forEachNode((id, a) => graph.setNodeAttribute(id, 'color', labelColour(a.labels)));
  }
}

function categoryOrder(values) {
  // Largest categories first, so they get the palette's first colours.
  const counts = new Map();
  for (const v of values.values()) counts.set(v, (counts.get(v) || 0) + 1);
  const sorted = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  return new Map(sorted.map(([v], i) => [v, i]));
}

/** The legend for the current colouring: [{colour, text, count}]. */
export function legend() {
  const {mode, values} = colouring;
  if (mode === 'category') {
    const counts = new Map();
    graph.forEachNode((id) => {
      const v = values.get(id);
      if (v !== undefined) counts.set(v, (counts.get(v) || 0) + 1);
    });
    const order = categoryOrder(values);
    return [...counts]
      .sort((a, b) => order.get(a[0]) - order.get(b[0]))
      .slice(0, 12)
      .map(([v, c]) => {
        const i = order.get(v);
        return {colour: i < PALETTE.length ? PALETTE[i] : '#8d96a3', text: String(v), count: c};
      });
  }
  if (mode === 'ramp') {
    return [
      {colour: rampColour(0), text: 'low'},
      {colour: rampColour(0.5), text: 'median'},
      {colour: rampColour(1), text: 'high'},
    ];
  }
  const counts = new Map();
  graph.forEachNode((_, a) => {
    const l = a.labels && a.labels.length ? a.labels[0] : '(no label)';
    counts.set(l, (counts.get(l) || 0) + 1);
  });
  return [...counts]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 14)
    .map(([l, c]) => ({colour: labelColour(l === '(no label)' ? [] : [l]), text: l, count: c}));
}

export function colouringMode() {
  return colouring.mode;
}
