// `npx tsx apps/bench/src/async-context-cost.ts` (or `node --import tsx ...` with another Node): what an enabled
// AsyncLocalStorage costs the promises a process makes, on the Node that runs it (issue 32). The same loop of awaits
// with no store, and run inside one and two stores. Node 20 and 22 hook every promise once a store is in use
// (async_hooks' promise hooks, each store's value copied onto each promise); Node 24 keeps the store in the async
// context frame and hooks nothing. The log context (@leadgen/logger) and the upstream calls' scope
// (@leadgen/providers) are such stores, in every API and worker process.
import { AsyncLocalStorage } from 'node:async_hooks';

const AWAITS = 200_000;
const REPEATS = 5;

async function leaf(i: number): Promise<number> {
  await null;
  return i;
}

async function loop(): Promise<number> {
  let sum = 0;
  for (let i = 0; i < AWAITS; i++) sum += await leaf(i);
  return sum;
}

async function cpuMs(stores: AsyncLocalStorage<number>[]): Promise<number> {
  const inside = (k: number, fn: () => Promise<number>): Promise<number> =>
    k === 0 ? fn() : stores[k - 1]!.run(k, () => inside(k - 1, fn));
  await inside(stores.length, loop); // warm
  const before = process.cpuUsage();
  for (let r = 0; r < REPEATS; r++) await inside(stores.length, loop);
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

async function main(): Promise<void> {
  // Each count in a process of its own: a store once run leaves Node 20's hooks enabled for good.
  const count = Number(process.argv[2] ?? -1);
  if (count >= 0) {
    const ms = await cpuMs(Array.from({ length: count }, () => new AsyncLocalStorage<number>()));
    console.log(`${ms.toFixed(0)}`);
    return;
  }
  const { execFileSync } = await import('node:child_process');
  const run = (n: number) =>
    Number(execFileSync(process.execPath, [...process.execArgv, __filename, String(n)], { encoding: 'utf8' }).trim());
  const [none, one, two] = [run(0), run(1), run(2)];
  const per = (ms: number) => ((ms * 1000) / (AWAITS * REPEATS)).toFixed(3);
  console.log(`node ${process.version}, ${AWAITS * REPEATS} awaits of an async function:`);
  console.log(
    `  no store ${none} ms CPU (${per(none)} µs each), one store ${one} ms (${per(one)} µs), two stores ${two} ms (${per(two)} µs)`,
  );
  console.log(`  one store costs ${(one / none).toFixed(2)}x`);
}

void main();
