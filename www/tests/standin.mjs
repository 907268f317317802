// A stand-in for a Kubernetes API server's events, for the dashboard's
// tests and benchmark, on a loopback port, serving the dashboard itself
// from www/dist at / (as `hushd serve` does, so the page connects to it):
//
// * GET /version: a version, so the page knows it was served by an API;
// * GET /api/v1/events?limit=N&continue=T: the events in pages, with
//   metadata.continue and metadata.resourceVersion as the API server gives
//   them;
// * GET /api/v1/events?watch=true: the changes `emit` sends from then on,
//   one JSON line each ({"type", "object"}), until `end` or `close`;
// * with `tokens`, bearer-token authentication answered as kube-apiserver
//   answers it: without a token it knows, 401 with a `Status` of reason
//   Unauthorized; with a token marked "forbidden", 403 with reason
//   Forbidden and the message the API server writes. The static files of
//   the page need no token (a page must load to ask for one).
//
// Every request is recorded (method, path, Authorization header).

import { createServer } from 'node:http';
import { dist, serveFile } from './harness.mjs';

const status = (code, reason, message) => JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code });

/**
 * Starts the stand-in. `items(from, to)` gives the listed Event objects
 * (JSON texts) `from..to` of `total`. `tokens`: token → "allowed" or
 * "forbidden" (no authentication when absent).
 */
export function standIn({ total = 0, items = () => [], tokens = null, user = 'alice' } = {}) {
  const watchers = new Set();
  const requests = [];
  let resourceVersion = total;
  const server = createServer((req, res) => {
    const url = new URL(req.url, 'http://x');
    requests.push({ method: req.method, path: url.pathname, search: url.search, authorization: req.headers.authorization ?? null });
    if (url.pathname !== '/version' && !url.pathname.startsWith('/api')) return serveFile(dist, req, res);
    if (tokens && url.pathname.startsWith('/api')) {
      const token = (req.headers.authorization ?? '').match(/^Bearer (.+)$/)?.[1];
      const known = token && tokens[token];
      if (!known) return res.writeHead(401, { 'content-type': 'application/json' }).end(status(401, 'Unauthorized', 'Unauthorized'));
      if (known === 'forbidden') {
        const message = `events is forbidden: User "${user}" cannot ${url.searchParams.get('watch') ? 'watch' : 'list'} resource "events" in API group "" at the cluster scope`;
        return res.writeHead(403, { 'content-type': 'application/json' }).end(status(403, 'Forbidden', message));
      }
    }
    if (url.pathname === '/version') return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ major: '1', minor: '31', gitVersion: 'v1.31.0-standin' }));
    if (url.pathname !== '/api/v1/events') return res.writeHead(404, { 'content-type': 'application/json' }).end(status(404, 'NotFound', 'the server could not find the requested resource'));
    if (url.searchParams.get('watch') === 'true') {
      res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
      res.flushHeaders();
      watchers.add(res);
      res.on('close', () => watchers.delete(res));
      return;
    }
    const limit = Number(url.searchParams.get('limit') ?? 500);
    const from = Number(url.searchParams.get('continue') || 0);
    const to = Math.min(total, from + limit);
    const next = to < total ? String(to) : '';
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(`{"kind":"EventList","apiVersion":"v1","metadata":{"resourceVersion":"${resourceVersion}"${next ? `,"continue":"${next}"` : ''}},"items":[${items(from, to).join(',')}]}`);
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      resolve({
        url: `http://127.0.0.1:${port}`,
        requests,
        /** How many watches are open. */
        get watchers() {
          return watchers.size;
        },
        /** The next resourceVersion. */
        nextVersion: () => String(++resourceVersion),
        /** Sends watch lines (`[type, object]` pairs) to every open watch, as one write. */
        emit(changes) {
          const text = changes.map(([type, object]) => `${JSON.stringify({ type, object })}\n`).join('');
          for (const w of watchers) w.write(text);
        },
        /** Ends every open watch. */
        end() {
          for (const w of watchers) w.end();
        },
        close: () =>
          new Promise((r) => {
            for (const w of watchers) w.destroy();
            server.closeAllConnections?.();
            server.close(r);
          }),
      });
    });
  });
}
