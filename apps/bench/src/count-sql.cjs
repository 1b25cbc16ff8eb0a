// Preloaded by the bench into every process it measures (`node --require <this> --import tsx ...`):
// counts the SQL statements sent through `pg` and the Redis commands sent through `ioredis`, at the
// client, without a line of the service changed. Prisma 7 reaches PostgreSQL through
// @prisma/adapter-pg, which uses pg's Client (pool queries end in Client#query too), and BullMQ
// speaks through ioredis, so both are seen here whatever the service's own code looks like.
//
// BENCH_COUNT names what to patch (`pg`, `ioredis`, both comma-separated): a process that never
// uses pg (a bare baseline) should not pay its memory. The parent asks over the IPC channel
// ('bench:counts') and gets { sql, sqlTx, redis }; the channel is unref'd so it never keeps a
// process alive that would otherwise exit.
'use strict';
const path = require('node:path');

const counts = { sql: 0, sqlTx: 0, redis: 0 };
const wanted = new Set(
  (process.env.BENCH_COUNT || '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean),
);
// Resolve from the working directory (the repository root), as the service's own imports do, so
// the module patched is the one instance the service loads, not a copy beside this file.
const fromRepo = (name) => require(require.resolve(name, { paths: [process.cwd(), path.resolve(__dirname, '../../..')] }));
const TX = /^\s*(BEGIN|COMMIT|ROLLBACK|START TRANSACTION|SAVEPOINT|RELEASE)/i;

if (wanted.has('pg')) {
  const pg = fromRepo('pg');
  const original = pg.Client.prototype.query;
  pg.Client.prototype.query = function countedQuery(config, ...rest) {
    counts.sql += 1;
    const text = typeof config === 'string' ? config : config && config.text;
    if (typeof text === 'string' && TX.test(text)) counts.sqlTx += 1;
    return original.call(this, config, ...rest);
  };
}

if (wanted.has('ioredis')) {
  const ioredis = fromRepo('ioredis');
  const Redis = ioredis.Redis || ioredis.default || ioredis;
  const original = Redis.prototype.sendCommand;
  // Pipelines and MULTI send each command through sendCommand too: this counts commands, which
  // bounds the round trips from above (a pipeline of five is one round trip, five commands).
  Redis.prototype.sendCommand = function countedSendCommand(...args) {
    counts.redis += 1;
    return original.apply(this, args);
  };
}

if (typeof process.send === 'function') {
  process.on('message', (message) => {
    if (message === 'bench:counts' && process.connected) process.send({ benchCounts: counts });
  });
  if (process.channel) process.channel.unref();
}
