import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { RequestHandler } from 'express';

/**
 * The project's Markdown docs that the served OpenAPI document links to (decision 036): GET /docs/<name>.md and
 * /docs/decisions/<name>.md, read once at start-up from docs/ (the runtime image carries it beside dist/), so every
 * link of the document resolves on the service itself. Only the files listed then are served: a name is looked up
 * in that list, never joined onto a path.
 */
export const DOCS_DIR =
  [
    path.resolve(__dirname, '../../../../docs'), // sources: apps/api/src/openapi
    path.resolve(__dirname, '../docs'), // the build: dist/, beside docs/ (also in the image)
  ].find((dir) => existsSync(path.join(dir, 'api.md'))) ?? path.resolve(__dirname, '../../../../docs');

function readDocs(dir: string): Map<string, string> {
  const docs = new Map<string, string>();
  for (const sub of ['', 'decisions']) {
    const at = path.join(dir, sub);
    if (!existsSync(at)) continue;
    for (const file of readdirSync(at))
      if (file.endsWith('.md')) docs.set(`/${sub ? `${sub}/` : ''}${file}`, readFileSync(path.join(at, file), 'utf8'));
  }
  return docs;
}

/** Mounted at /docs, before the interactive reference: the Markdown files, as text/markdown; anything else goes on. */
export function servedDocs(dir = DOCS_DIR): RequestHandler {
  const docs = readDocs(dir);
  return (req, res, next) => {
    const doc = req.method === 'GET' || req.method === 'HEAD' ? docs.get(req.path) : undefined;
    if (doc === undefined) return next();
    res.setHeader('Cache-Control', 'public, max-age=300');
    res.status(200).type('text/markdown; charset=utf-8').send(doc);
  };
}

const DOC_REFERENCE = /(?<!\]\(|\/|\[|[\w.-])docs\/((?:decisions\/)?[a-z0-9-]+\.md)(#[a-z0-9-]+)?/g;

/**
 * Every `docs/….md` a description names becomes a Markdown link to where this service serves it (`/docs/….md`, an
 * absolute path: it resolves against the origin the document was fetched from, and Swagger UI renders it).
 */
export function linkDocs<T>(node: T): T {
  if (typeof node === 'string')
    return node.replace(DOC_REFERENCE, (_m, file: string, anchor = '') => `[docs/${file}${anchor}](/docs/${file}${anchor})`) as T;
  if (Array.isArray(node)) return node.map(linkDocs) as T;
  if (node && typeof node === 'object') return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, linkDocs(v)])) as T;
  return node;
}
