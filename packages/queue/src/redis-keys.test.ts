import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { assertOneSlot, RedisKeys, slotOf } from './redis-keys';

describe('RedisKeys', () => {
  it('when on one node, then a queue keeps QUEUE_PREFIX as its prefix (no key renamed)', () => {
    expect(new RedisKeys('leadgen', false).queuePrefix('google_maps')).toBe('leadgen');
  });

  it('when on a cluster, then each queue gets a hash tag of its own, and a tagged QUEUE_PREFIX is kept as it is', () => {
    const keys = new RedisKeys('leadgen', true);
    expect(keys.queuePrefix('google_maps')).toBe('{leadgen:google_maps}');
    expect(slotOf(`${keys.queuePrefix('google_maps')}:google_maps:wait`)).toBe(
      slotOf(`${keys.queuePrefix('google_maps')}:google_maps:active`),
    );
    expect(new RedisKeys('{leadgen}', true).queuePrefix('google_maps')).toBe('{leadgen}');
  });

  it('when keys of a group are named, then they share one slot; keys of their own spread', () => {
    const group = new RedisKeys('leadgen', true).group('login-failures');
    expect(group('client', '10.0.0.1')).toBe('{leadgen:login-failures}:client:10.0.0.1');
    expect(() => assertOneSlot([group('client', 'a'), group('user', 'b')])).not.toThrow();
    const keys = new RedisKeys('leadgen', false);
    const spread = new Set(['a', 'b', 'c', 'd', 'e'].map((id) => slotOf(keys.key('ratelimit', id))));
    expect(spread.size).toBeGreaterThan(1);
  });

  it('when keys of different slots are used together, then assertOneSlot refuses them before Redis would (CROSSSLOT)', () => {
    const keys = new RedisKeys('leadgen', false);
    expect(() => assertOneSlot([keys.key('a'), keys.key('b')])).toThrow(/different hash slots/);
  });
});

// The rule of decision 023 holds only if every script and multi-key command goes through runScript
// and RedisKeys: any other call of these in the service's code would bypass the slot check.
const RAW_REDIS =
  /\.(eval|evalsha|defineCommand|mget|mset|multi|pipeline|sunion|sinter|rename|smove|brpoplpush)\(|`\$\{[a-zA-Z.]*prefix\}:/i;
const ROOT = path.resolve(__dirname, '../../..');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (name === 'node_modules' || name === 'test') return [];
    if (statSync(full).isDirectory()) return sources(full);
    return /\.ts$/.test(name) && !/\.test\.ts$/.test(name) ? [full] : [];
  });
}

describe('the key rule', () => {
  it('when the service code is read, then no script, multi-key command or key built from the prefix is outside redis-keys.ts', () => {
    // The bench and the test helpers are not service code: they drive Redis from outside, as an operator's tool would.
    const tools = new Set(['bench', 'testing']);
    const offenders = ['apps', 'packages']
      .flatMap((group) =>
        readdirSync(path.join(ROOT, group))
          .filter((name) => !tools.has(name))
          .map((name) => path.join(ROOT, group, name, 'src')),
      )
      .filter((dir) => statSync(dir, { throwIfNoEntry: false })?.isDirectory())
      .flatMap(sources)
      .filter((file) => !file.endsWith(path.join('queue', 'src', 'redis-keys.ts')))
      .filter((file) => RAW_REDIS.test(readFileSync(file, 'utf8')))
      .map((file) => path.relative(ROOT, file));
    expect(offenders).toEqual([]);
  });
});
