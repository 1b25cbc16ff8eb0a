// Baseline (d): Express 5 streaming a download made in memory, no PostgreSQL: `rows` lines of `bytes`
// in all, written in batches of 1,000 lines with the service's backpressure (wait for 'drain'). What
// any process pays in memory to stream that many bytes; compared with the service's CSV and JSON Lines
// export of as many leads (apps/bench/src/export-memory.ts).
import express, { type Response } from 'express';

const BATCH = 1_000;

async function write(res: Response, chunk: string): Promise<boolean> {
  if (res.write(chunk)) return true;
  await new Promise<void>((resolve) => {
    res.once('drain', resolve);
    res.once('close', resolve);
  });
  return !res.destroyed;
}

const app = express();
app.get('/ready', (_req, res) => void res.json({ ok: true }));
app.get('/export', async (req, res) => {
  const rows = Number(req.query.rows);
  const lineBytes = Math.max(8, Math.round(Number(req.query.bytes) / rows));
  res.setHeader('Content-Type', 'application/x-ndjson; charset=utf-8');
  // Each line made anew, as the service makes each lead's: the same garbage for the collector.
  const line = (i: number) => `${i}:`.padEnd(lineBytes - 1, String.fromCharCode(97 + (i % 26))) + '\n';
  for (let start = 0; start < rows; start += BATCH) {
    const lines: string[] = [];
    for (let i = start; i < Math.min(rows, start + BATCH); i += 1) lines.push(line(i));
    if (!(await write(res, lines.join('')))) return;
  }
  res.end();
});
app.listen(Number(process.env.PORT), '127.0.0.1');
process.on('SIGTERM', () => process.exit(0));
