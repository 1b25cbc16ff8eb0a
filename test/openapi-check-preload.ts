// Preloaded into an API process a test starts (packages/testing/src/processes.ts, startApiProcess): every response of
// its public server is checked against the served OpenAPI document by the checker the in-process
// harness uses; when the process exits, OPENAPI_CHECK_REPORT gets `{ checked, problems }`.
import { subscribe } from 'node:diagnostics_channel';
import { writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { OpenApiResponses } from '../apps/api/test/support/openapi-responses';

const report = process.env.OPENAPI_CHECK_REPORT;
const port = Number(process.env.PORT);
if (!report || !port) throw new Error('openapi-check-preload: OPENAPI_CHECK_REPORT and PORT must be set');

const checker = new OpenApiResponses();
const watched = new WeakSet<Server>();
const problems: string[][] = [];
let checked = 0;
process.on('exit', () => writeFileSync(report, JSON.stringify({ checked, problems: problems.flat() })));

// Published by Node for every request before the server emits 'request', so the listener the checker
// prepends on a server's first request sees that request too. Only the public port: the operations
// port (off unless a test sets OPS_PORT) is not the document's.
subscribe('http.server.request.start', (message) => {
  const { server } = message as { server: Server };
  if ((server.address() as { port?: number } | null)?.port !== port) return;
  checked += 1;
  if (watched.has(server)) return;
  watched.add(server);
  problems.push(checker.watch(server));
});
