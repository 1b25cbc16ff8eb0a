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

const counts = { sql: 0, sqlTx: 0, redis: 0, redisByName: {}, sqlByName: {} };
// A statement by the SQL function it calls (`SELECT … FROM commit_slice(…)`), or its first word.
const FUNCTION = /\b(?!VALUES\b)([a-z_]+)\s*\(\$1\b/i;
const sqlName = (text) => (FUNCTION.exec(text) || [])[1] || String(text).trim().split(/\s+/)[0].toUpperCase();
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
    if (typeof text === 'string') {
      const name = sqlName(text);
      counts.sqlByName[name] = (counts.sqlByName[name] || 0) + 1;
    }
    return original.call(this, config, ...rest);
  };
}

if (wanted.has('ioredis')) {
  const ioredis = fromRepo('ioredis');
  const Redis = ioredis.Redis || ioredis.default || ioredis;
  const original = Redis.prototype.sendCommand;
  // Lua scripts by name: ioredis sends a defined command as EVALSHA (or EVAL) of its script; its SHA-1 names it.
  const crypto = require('node:crypto');
  const scripts = new Map();
  const define = Redis.prototype.defineCommand;
  Redis.prototype.defineCommand = function countedDefineCommand(name, definition) {
    if (definition && typeof definition.lua === 'string') scripts.set(crypto.createHash('sha1').update(definition.lua).digest('hex'), name);
    return define.call(this, name, definition);
  };
  const nameOf = (command) => {
    const name = String(command && command.name).toLowerCase();
    const first = command && Array.isArray(command.args) ? command.args[0] : undefined;
    if (name === 'evalsha' && first !== undefined) return `evalsha ${scripts.get(String(first)) || String(first).slice(0, 8)}`;
    if (name === 'eval' && first !== undefined)
      return `eval ${scripts.get(crypto.createHash('sha1').update(String(first)).digest('hex')) || 'script'}`;
    return name;
  };
  // Pipelines and MULTI send each command through sendCommand too: this counts commands, which
  // bounds the round trips from above (a pipeline of five is one round trip, five commands).
  Redis.prototype.sendCommand = function countedSendCommand(...args) {
    counts.redis += 1;
    const name = nameOf(args[0]);
    counts.redisByName[name] = (counts.redisByName[name] || 0) + 1;
    return original.apply(this, args);
  };
}

if (typeof process.send === 'function') {
  process.on('message', (message) => {
    if (message === 'bench:counts' && process.connected) process.send({ benchCounts: counts });
  });
  if (process.channel) process.channel.unref();
}
