// Baseline (a): Express 5 answering a small JSON body: what any route of the service pays before
// it does its own work. Compared with GET of a terminal job.
import express from 'express';

const app = express();
app.get('/ready', (_req, res) => void res.json({ ok: true }));
app.get('/hello', (_req, res) => void res.json({ hello: 'world' }));
app.listen(Number(process.env.PORT), '127.0.0.1');
process.on('SIGTERM', () => process.exit(0));
