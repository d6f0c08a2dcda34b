// A small parser for Prometheus' text format, enough for /metrics.

/** Returns Map name -> [{labels: {..}, value: number}]. */
export function parsePrometheus(text) {
  const out = new Map();
  for (const line of text.split('\n')) {
    if (!line || line[0] === '#') continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{([^}]*)\})?\s+(\S+)/.exec(line);
    if (!m) continue;
    const labels = {};
    if (m[3]) {
      const re = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;
      let lm;
      while ((lm = re.exec(m[3]))) labels[lm[1]] = lm[2].replace(/\\(.)/g, '$1');
    }
    const v = m[4] === '+Inf' ? Infinity : m[4] === '-Inf' ? -Infinity : Number(m[4]);
    if (!out.has(m[1])) out.set(m[1], []);
    out.get(m[1]).push({labels, value: v});
  }
  return out;
}

/** The value of a series without labels (or the sum over its label sets); null when absent. */
export function metric(map, name) {
  const s = map.get(name);
  if (!s || !s.length) return null;
  return s.reduce((a, x) => a + x.value, 0);
}

/**
 * Histogram summary per label set (without `le`): [{labels, count, sum, p50, p95, p99}].
 * Quantiles are estimated from the buckets by linear interpolation, as Prometheus does.
 */
export function histogram(map, name) {
  const buckets = map.get(`${name}_bucket`) || [];
  const sums = map.get(`${name}_sum`) || [];
  const counts = map.get(`${name}_count`) || [];
  const groups = new Map();
  const keyOf = (labels) =>
    JSON.stringify(Object.entries(labels).filter(([k]) => k !== 'le').sort());
  for (const b of buckets) {
    const k = keyOf(b.labels);
    if (!groups.has(k)) groups.set(k, {labels: {...b.labels}, buckets: []});
    groups.get(k).buckets.push({le: b.labels.le === '+Inf' ? Infinity : Number(b.labels.le), n: b.value});
  }
  const res = [];
  for (const [k, g] of groups) {
    delete g.labels.le;
    g.buckets.sort((a, b) => a.le - b.le);
    const count = (counts.find((c) => keyOf(c.labels) === k) || {}).value ?? 0;
    const sum = (sums.find((c) => keyOf(c.labels) === k) || {}).value ?? 0;
    const q = (p) => {
      if (!count) return null;
      const rank = p * count;
      let prevLe = 0;
      let prevN = 0;
      for (const b of g.buckets) {
        if (b.n >= rank) {
          if (b.le === Infinity) return prevLe;
          const f = b.n === prevN ? 0 : (rank - prevN) / (b.n - prevN);
          return prevLe + (b.le - prevLe) * f;
        }
        prevLe = b.le;
        prevN = b.n;
      }
      return prevLe;
    };
    res.push({labels: g.labels, count, sum, p50: q(0.5), p95: q(0.95), p99: q(0.99)});
  }
  return res;
}
