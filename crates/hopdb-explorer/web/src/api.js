// HTTP access to HopDB: Neo4j's query API (POST /db/neo4j/query/v2) and /metrics.
// The page is served under /browser/ by the same server, so the API paths are absolute.

export const QUERY_URL = '/db/neo4j/query/v2';
export const METRICS_URL = '/metrics';

const CRED_KEY = 'hopdb.explorer.credentials';

let credentials = null; // {user, password}
let onUnauthorized = () => {};

export function setUnauthorizedHandler(fn) {
  onUnauthorized = fn;
}

export function setCredentials(user, password, remember = true) {
  credentials = {user, password};
  if (remember) {
    try {
      sessionStorage.setItem(CRED_KEY, JSON.stringify(credentials));
    } catch (_) {
      /* storage may be disabled */
    }
  }
}

export function clearCredentials() {
  credentials = null;
  try {
    sessionStorage.removeItem(CRED_KEY);
  } catch (_) {
    /* ignore */
  }
}

export function storedCredentials() {
  try {
    const raw = sessionStorage.getItem(CRED_KEY);
    return raw ? JSON.parse(raw) : null;
  } catch (_) {
    return null;
  }
}

export function currentUser() {
  return credentials ? credentials.user : null;
}

function basicAuth() {
  if (!credentials) return null;
  // btoa only takes Latin-1: encode the UTF-8 bytes.
  const bytes = new TextEncoder().encode(`${credentials.user}:${credentials.password}`);
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return 'Basic ' + btoa(bin);
}

/** An error the server answered (or a transport failure), with Neo4j's code when there is one. */
export class QueryError extends Error {
  constructor(code, message, status) {
    super(message);
    this.code = code;
    this.status = status;
    const pos = parsePosition(message);
    this.line = pos ? pos.line : null;
    this.column = pos ? pos.column : null;
    this.offset = pos ? pos.offset : null;
  }
}

/** Finds "(line L, column C" and "offset: O" in a syntax error message. */
export function parsePosition(message) {
  const m = /line\s+(\d+)\s*,\s*column\s+(\d+)/i.exec(message || '');
  if (!m) return null;
  const o = /offset:?\s*(\d+)/i.exec(message);
  return {line: Number(m[1]), column: Number(m[2]), offset: o ? Number(o[1]) : null};
}

/**
 * Runs one statement. Resolves to {fields, values, plan, profile, raw, ms} where ms is the
 * round trip measured in the page; rejects with a QueryError.
 */
export async function runQuery(statement, parameters = {}, {signal, quiet401 = false} = {}) {
  const t0 = performance.now();
  let resp;
  try {
    const headers = {'Content-Type': 'application/json', Accept: 'application/json'};
    const auth = basicAuth();
    if (auth) headers.Authorization = auth;
    resp = await fetch(QUERY_URL, {
      method: 'POST',
      headers,
      body: JSON.stringify({statement, parameters}),
      signal,
      credentials: 'omit',
    });
  } catch (e) {
    if (e && e.name === 'AbortError') throw e;
    throw new QueryError('Network', `cannot reach the server: ${e.message || e}`, 0);
  }
  let body = null;
  const text = await resp.text();
  try {
    body = text ? JSON.parse(text) : null;
  } catch (_) {
    body = null;
  }
  const ms = performance.now() - t0;
  if (!resp.ok || (body && Array.isArray(body.errors) && body.errors.length)) {
    const err = body && body.errors && body.errors[0];
    const code = err ? err.code : `HTTP ${resp.status}`;
    const message = err ? err.message : text.slice(0, 500) || resp.statusText;
    const qe = new QueryError(code, message, resp.status);
    if ((resp.status === 401 || /Security\.Unauthorized/.test(code)) && !quiet401) onUnauthorized(qe);
    throw qe;
  }
  const data = (body && body.data) || {fields: [], values: []};
  return {
    fields: data.fields || [],
    values: data.values || [],
    plan: body.queryPlan || null,
    profile: body.profiledQueryPlan || null,
    counters: body.counters || null,
    raw: body,
    ms,
  };
}

/** GET /metrics as text (null when the server offers none). */
export async function fetchMetrics() {
  const resp = await fetch(METRICS_URL, {headers: {Accept: 'text/plain'}, credentials: 'omit'});
  if (!resp.ok) throw new Error(`/metrics answered HTTP ${resp.status}`);
  return resp.text();
}

/**
 * GET a file under /browser/ with the page's credentials (the server wants them for
 * everything but the login page when authentication is on). Resolves to the Response.
 */
export async function fetchWithAuth(url) {
  const headers = {};
  const auth = basicAuth();
  if (auth) headers.Authorization = auth;
  const resp = await fetch(url, {headers, credentials: 'omit'});
  if (!resp.ok) throw new Error(`${url} answered HTTP ${resp.status}`);
  return resp;
}

/** Quotes a label, type or property name for Cypher: `name`. */
export function quoteName(name) {
  return '`' + String(name).replace(/`/g, '``') + '`';
}
