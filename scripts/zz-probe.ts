import { Redis } from 'ioredis';
import { Queue } from 'bullmq';
async function main() {
  const r = new Redis();
  const before = Number(/total_commands_processed:(\d+)/.exec(await r.info('stats'))![1]);
  const q = new Queue('probe', { connection: new Redis({ maxRetriesPerRequest: null }), prefix: 'probe-count-x' });
  for (let i = 0; i < 10; i++) await q.add('j', { i });
  const p = r.pipeline(); p.ping(); p.ping(); await p.exec();
  const after = Number(/total_commands_processed:(\d+)/.exec(await r.info('stats'))![1]);
  await q.obliterate({ force: true });
  process.send!('bench:counts');
  console.log('info delta', after - before);
  await q.close(); await r.quit();
}
process.on('message', (m) => console.log('got', JSON.stringify(m)));
main();
