import { Writable } from 'node:stream';
import winston from 'winston';
import { base } from './logger';

/**
 * Every line written until `stop()`, parsed, instead of to the console (for tests: jest's console
 * cannot be intercepted once winston has bound it).
 */
export function captureLogLines(): { lines: Array<Record<string, unknown>>; stop(): void } {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line.trim()) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const transport = new winston.transports.Stream({ stream: sink });
  const others = base.transports.filter((t) => !t.silent);
  for (const t of others) t.silent = true;
  base.add(transport);
  return {
    lines,
    stop: () => {
      base.remove(transport);
      for (const t of others) t.silent = false;
    },
  };
}
