import { createHash } from 'node:crypto';

/**
 * sfc32, seeded from the sha256 of a text: any request maps to a full 128-bit state, and the same
 * text always replays the same stream, which is what makes the sandbox deterministic.
 */
export class SeededRandom {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  static fromText(text: string): SeededRandom {
    const digest = createHash('sha256').update(text).digest();
    return new SeededRandom(digest.readUInt32LE(0), digest.readUInt32LE(4), digest.readUInt32LE(8), digest.readUInt32LE(12));
  }

  private constructor(a: number, b: number, c: number, d: number) {
    this.a = a;
    this.b = b;
    this.c = c;
    this.d = d;
    // sfc32's first outputs are still correlated with the seed words
    for (let i = 0; i < 12; i++) this.next();
  }

  /** uniform in [0, 1) */
  next(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return (t >>> 0) / 4294967296;
  }

  /** an integer in [min, max], both included */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list');
    return items[this.int(0, items.length - 1)] as T;
  }

  hex(length: number): string {
    let out = '';
    for (let i = 0; i < length; i++) out += this.int(0, 15).toString(16);
    return out;
  }

  /** `#` becomes a digit 0-9, `%` a digit 1-9, `@` an upper-case letter; anything else is kept */
  fill(pattern: string): string {
    return pattern.replace(/[#%@]/g, (ch) => {
      if (ch === '#') return String(this.int(0, 9));
      if (ch === '%') return String(this.int(1, 9));
      return String.fromCharCode(65 + this.int(0, 25));
    });
  }
}
