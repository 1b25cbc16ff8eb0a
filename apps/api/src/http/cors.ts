import type { RequestHandler } from 'express';
import type { Endpoint } from './route-table';

/**
 * CORS for the API under /api/v1 (decision 036), for the browser apps of CORS_ALLOWED_ORIGINS, which call it with
 * a key of restricted scope. A preflight (OPTIONS) of a known path answers 204 with `Allow`, and, when its origin is
 * listed and it asks for one of the path's methods, the CORS grant; an unlisted origin gets no grant, so the browser
 * stops the call. An ordinary answer to a listed origin carries `Access-Control-Allow-Origin` and the headers a
 * client reads. Never credentials: keys travel in `Authorization`, not cookies. Mounted at /api/v1 only, so the
 * operator board (/admin/queues) and /docs are never offered to another origin.
 */
export const CORS_ALLOWED_HEADERS = ['Authorization', 'Content-Type', 'Idempotency-Key', 'Prefer', 'X-Request-Id'];
export const CORS_EXPOSED_HEADERS = [
  'X-Request-Id',
  'RateLimit',
  'RateLimit-Policy',
  'Retry-After',
  'Location',
  'Link',
  'Idempotent-Replayed',
  'Preference-Applied',
  'Result-Complete',
  'Job-Status',
  'Batch-Status',
  'Content-Disposition',
  'WWW-Authenticate',
];
/** How long a browser may keep a preflight's answer (seconds). */
export const CORS_MAX_AGE_SECONDS = 600;

const METHOD_ORDER = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** The methods of each /api/v1 path of the table, matched as Express would route it (`{id}` one segment). */
function pathMethods(endpoints: readonly Endpoint[], base: string): Array<{ pattern: RegExp; methods: string[] }> {
  const byPath = new Map<string, Set<string>>();
  for (const endpoint of endpoints) {
    if (!endpoint.path.startsWith(`${base}/`)) continue;
    const relative = endpoint.path.slice(base.length);
    byPath.set(relative, (byPath.get(relative) ?? new Set()).add(endpoint.method.toUpperCase()));
  }
  return [...byPath].map(([path, methods]) => ({
    pattern: new RegExp(
      `^${path
        .split(/(\{[A-Za-z_][A-Za-z0-9_]*\})/)
        .map((part) => (part.startsWith('{') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
        .join('')}/?$`,
    ),
    methods: METHOD_ORDER.filter((m) => methods.has(m)),
  }));
}

export function cors(endpoints: readonly Endpoint[], base: string, allowedOrigins: readonly string[]): RequestHandler {
  const paths = pathMethods(endpoints, base);
  const allowed = new Set(allowedOrigins);
  return (req, res, next) => {
    const origin = req.get('Origin');
    const granted = origin !== undefined && allowed.has(origin);
    // A shared cache must not give one origin's answer to another.
    if (allowed.size > 0) res.vary('Origin');
    if (req.method === 'OPTIONS') {
      const known = paths.find((p) => p.pattern.test(req.path));
      if (!known) return next();
      const asked = req.get('Access-Control-Request-Method')?.toUpperCase();
      res.setHeader('Allow', [...known.methods, 'OPTIONS'].join(', '));
      if (granted && asked !== undefined && known.methods.includes(asked)) {
        res.setHeader('Access-Control-Allow-Origin', origin);
        res.setHeader('Access-Control-Allow-Methods', known.methods.join(', '));
        res.setHeader('Access-Control-Allow-Headers', CORS_ALLOWED_HEADERS.join(', '));
        res.setHeader('Access-Control-Max-Age', String(CORS_MAX_AGE_SECONDS));
      }
      res.status(204).end();
      return;
    }
    if (granted) {
      res.setHeader('Access-Control-Allow-Origin', origin);
      res.setHeader('Access-Control-Expose-Headers', CORS_EXPOSED_HEADERS.join(', '));
    }
    next();
  };
}
