// Script-built addresses: the constant folding the enricher uses (acorn, nothing of the page runs)
// beside the alternative decision 025 weighed, running the page's inline scripts in an isolated-vm
// sandbox against a recording DOM stub. Same scripts (every inline script of the unseen-sites
// corpus), same machine, one run: time per page, memory, and which of the corpus' business addresses
// each finds in scripts. isolated-vm is a native addon that compiles at install (minutes, a compiler
// on every machine), so it is not a dependency; to run this comparison:
//   (cd /tmp/ivm && npm init -y && npm install isolated-vm)
//   ISOLATED_VM=/tmp/ivm/node_modules/isolated-vm npx tsx apps/bench/src/script-sandbox.ts
// Without ISOLATED_VM it prints the folding side alone.
import { createRequire } from 'node:module';
import { scriptStrings } from '@leadgen/providers/src/enrichment/script-strings';
import { UNSEEN_SITES } from '@leadgen/testing';

interface Page {
  site: string;
  scripts: string[];
}

const EMAIL = /[a-z0-9._%+-]+@[a-z0-9.-]+\.[a-z]{2,}/gi;

function inlineScripts(html: string): string[] {
  const scripts: string[] = [];
  for (const match of html.matchAll(/<script(\s[^>]*)?>([\s\S]*?)<\/script>/gi)) {
    const attributes = match[1] ?? '';
    if (/\bsrc=/.test(attributes) || /ld\+json/.test(attributes) || match[2]!.trim() === '') continue;
    scripts.push(match[2]!);
  }
  return scripts;
}

const PAGES: Page[] = UNSEEN_SITES.flatMap((site) =>
  Object.values(site.pages).map((html) => ({ site: site.id, scripts: inlineScripts(html) })),
).filter((page) => page.scripts.length > 0);
const BUSINESS = new Set(UNSEEN_SITES.flatMap((site) => site.emails.map((e) => e.toLowerCase())));

function addresses(strings: string[]): string[] {
  return strings.flatMap((s) => [...s.matchAll(EMAIL)].map((m) => m[0].toLowerCase()));
}

function foldPage(page: Page): string[] {
  return addresses(page.scripts.flatMap((script) => scriptStrings(script)));
}

// What a page's script can touch, recorded: element properties it sets, document.write, and the
// globals the corpus' builders' inline configs call. Everything else throws inside the isolate.
const DOM_STUB = `
  const written = [];
  const element = () => new Proxy({}, { set(_t, _k, v) { written.push(String(v)); return true; }, get(_t, k) { return k === 'style' ? {} : undefined; } });
  globalThis.window = globalThis;
  globalThis.document = { getElementById: element, querySelector: element, write: (s) => written.push(String(s)), createElement: element };
  globalThis.Sentry = { init() {} };
  // A bare V8 isolate has no atob (a browser's and Node's global): a decoder written here.
  globalThis.atob = (b64) => {
    const abc = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
    let bits = 0, value = 0, out = '';
    for (const c of b64.replace(/=+$/, '')) {
      value = (value << 6) | abc.indexOf(c); bits += 6;
      if (bits >= 8) { bits -= 8; out += String.fromCharCode((value >> bits) & 255); }
    }
    return out;
  };
  globalThis.__written = () => written.join('\\n');
`;

interface Sandbox {
  name: string;
  run(page: Page): string[];
  close(): void;
}

// The part of isolated-vm's API used here (it is not installed with the project, so not its types).
interface IsolatedVm {
  Isolate: new (options: { memoryLimit: number }) => {
    createContextSync(): { evalSync(code: string, options?: { timeout: number }): unknown };
    dispose(): void;
  };
}

function isolatedVm(path: string): Sandbox {
  const ivm = createRequire(__filename)(path) as IsolatedVm;
  return {
    name: 'isolated-vm (a new isolate per page, 8 MB, 50 ms per script)',
    run(page) {
      const isolate = new ivm.Isolate({ memoryLimit: 8 });
      try {
        const context = isolate.createContextSync();
        context.evalSync(DOM_STUB);
        for (const script of page.scripts) {
          try {
            context.evalSync(script, { timeout: 50 });
          } catch {
            // a script that needs more than the stub: what it wrote so far still counts
          }
        }
        return addresses([context.evalSync('__written()') as string]);
      } finally {
        isolate.dispose();
      }
    },
    close() {},
  };
}

function measure(name: string, run: (page: Page) => string[], rounds: number) {
  const found = new Set<string>();
  for (const page of PAGES) for (const address of run(page)) found.add(address);
  const heapBefore = process.memoryUsage().rss;
  const started = process.hrtime.bigint();
  const cpuBefore = process.cpuUsage();
  for (let r = 0; r < rounds; r++) for (const page of PAGES) run(page);
  const wallUs = Number(process.hrtime.bigint() - started) / 1000 / (rounds * PAGES.length);
  const cpu = process.cpuUsage(cpuBefore);
  const cpuUs = (cpu.user + cpu.system) / (rounds * PAGES.length);
  const business = [...found].filter((a) => BUSINESS.has(a));
  const junk = [...found].filter((a) => !BUSINESS.has(a));
  const rssGrowthMiB = (process.memoryUsage().rss - heapBefore) / 1024 / 1024;
  return { name, wallUs, cpuUs, business, junk, rssGrowthMiB };
}

function main(): void {
  const rounds = Number(process.env.ROUNDS ?? 20);
  const scripts = PAGES.reduce((n, p) => n + p.scripts.length, 0);
  console.log(`script-built addresses: ${PAGES.length} corpus pages with ${scripts} inline scripts, ${rounds} rounds`);
  const rows = [measure('constant folding (acorn), in use', foldPage, rounds)];
  const ivmPath = process.env.ISOLATED_VM;
  if (ivmPath) {
    const sandbox = isolatedVm(ivmPath);
    rows.push(measure(sandbox.name, (page) => sandbox.run(page), rounds));
    sandbox.close();
  } else {
    console.log('  (ISOLATED_VM not set: the sandbox side is not measured; see the header of this file)');
  }
  for (const row of rows) {
    console.log(`  ${row.name}:`);
    console.log(
      `    per page: ${row.wallUs.toFixed(0)} µs wall, ${row.cpuUs.toFixed(0)} µs CPU; RSS growth over the run ${row.rssGrowthMiB.toFixed(1)} MiB`,
    );
    console.log(`    business addresses found in scripts: ${row.business.length} (${row.business.sort().join(', ') || '-'})`);
    console.log(`    other addresses found in scripts: ${row.junk.length} (${row.junk.sort().join(', ') || '-'})`);
  }
  if (rows.length === 2) console.log(`  sandbox / folding, CPU per page: ${(rows[1]!.cpuUs / Math.max(rows[0]!.cpuUs, 1)).toFixed(1)}x`);
}

main();
