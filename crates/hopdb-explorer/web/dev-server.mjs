// A development server with no dependencies: serves ../assets/ under /browser/ (as
// `hopdb serve` does) and passes /db/, /metrics and /health to a running HopDB HTTP port.
// As `hopdb serve` does, it serves index.html and THIRD_PARTY_LICENSES.txt to anyone and the
// other files only with credentials the server accepts (it asks the upstream with `RETURN 1`,
// so a server without users accepts anything).
//
//   node dev-server.mjs [--port 8080] [--host 127.0.0.1] [--upstream http://127.0.0.1:7474]
//                       [--assets ../assets]
//
// Prints "listening on http://HOST:PORT/browser/" once it accepts connections.

import http from 'node:http';
import {readFile} from 'node:fs/promises';
import path from 'node:path';
import {fileURLToPath} from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));

function arg(name, dflt) {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && i + 1 < process.argv.length ? process.argv[i + 1] : dflt;
}

const port = Number(arg('port', '8080'));
const host = arg('host', '127.0.0.1');
const upstream = new URL(arg('upstream', 'http://127.0.0.1:7474'));
const assets = path.resolve(here, arg('assets', '../assets'));

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

function proxy(req, res) {
  const opts = {
    protocol: upstream.protocol,
    hostname: upstream.hostname,
    port: upstream.port,
    method: req.method,
    path: req.url,
    headers: {...req.headers, host: upstream.host},
  };
  const up = http.request(opts, (ur) => {
    res.writeHead(ur.statusCode || 502, ur.headers);
    ur.pipe(res);
  });
  up.on('error', (e) => {
    if (!res.headersSent) res.writeHead(502, {'Content-Type': 'text/plain'});
    res.end(`dev-server: cannot reach ${upstream.href}: ${e.message}\n`);
  });
  req.pipe(up);
}

const PUBLIC = new Set(['index.html', 'THIRD_PARTY_LICENSES.txt']);

/** Whether the upstream accepts the request's credentials (status of `RETURN 1`). */
function upstreamAccepts(req) {
  return new Promise((resolve) => {
    const body = JSON.stringify({statement: 'RETURN 1'});
    const headers = {'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body), host: upstream.host};
    if (req.headers.authorization) headers.authorization = req.headers.authorization;
    const up = http.request(
      {protocol: upstream.protocol, hostname: upstream.hostname, port: upstream.port, method: 'POST', path: '/db/neo4j/query/v2', headers},
      (ur) => {
        ur.resume();
        resolve(ur.statusCode);
      },
    );
    up.on('error', () => resolve(502));
    up.end(body);
  });
}

async function serveAsset(req, res, rel) {
  if (rel === '' || rel.endsWith('/')) rel += 'index.html';
  if (!PUBLIC.has(rel)) {
    const status = await upstreamAccepts(req);
    if (status === 401 || status === 403) {
      // no challenge header: the page asks for credentials with its own form
      res.writeHead(status, {'Content-Type': 'application/json'});
      res.end(JSON.stringify({errors: [{code: 'Neo.ClientError.Security.Unauthorized', message: 'The client is unauthorized due to authentication failure.'}]}));
      return;
    }
  }
  const file = path.resolve(assets, '.' + path.posix.normalize('/' + decodeURIComponent(rel)));
  if (!file.startsWith(assets + path.sep)) {
    res.writeHead(403).end();
    return;
  }
  try {
    const body = await readFile(file);
    res.writeHead(200, {
      'Content-Type': TYPES[path.extname(file)] || 'application/octet-stream',
      'Content-Length': body.length,
      'Cache-Control': 'no-cache',
    });
    res.end(req.method === 'HEAD' ? undefined : body);
  } catch (_) {
    res.writeHead(404, {'Content-Type': 'text/plain'}).end('not found\n');
  }
}

const server = http.createServer((req, res) => {
  const url = new URL(req.url, 'http://x');
  const p = url.pathname;
  if (p.startsWith('/db/') || p === '/metrics' || p.startsWith('/health')) return proxy(req, res);
  if (p === '/' || p === '/browser') {
    res.writeHead(302, {Location: '/browser/'}).end();
    return;
  }
  if (p.startsWith('/browser/') && (req.method === 'GET' || req.method === 'HEAD')) {
    return serveAsset(req, res, p.slice('/browser/'.length));
  }
  res.writeHead(404, {'Content-Type': 'text/plain'}).end('not found\n');
});

server.listen(port, host, () => {
  const a = server.address();
  console.log(`listening on http://${host}:${a.port}/browser/ (upstream ${upstream.href}, assets ${assets})`);
});

for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => server.close(() => process.exit(0)));
