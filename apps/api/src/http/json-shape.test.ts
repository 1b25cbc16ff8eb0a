import { jsonShapeProblem } from './json-shape';

const shape = (text: string, maxDepth = 4, maxEntries = 10) => jsonShapeProblem(Buffer.from(text), { maxDepth, maxEntries });

describe('jsonShapeProblem', () => {
  it('when a body nests within the depth and holds few values, then no problem', () => {
    expect(shape('{"a":[1,2,{"b":[3]}]}')).toBeNull();
    expect(shape('"[[[[[[[[[["')).toBeNull();
  });

  it('when brackets and commas sit inside strings (escaped quotes included), then they are not counted', () => {
    expect(shape(JSON.stringify({ a: '[[[[[[,,,,,,,,,,,,,,,"\\"[[[[[[' }))).toBeNull();
    expect(shape(JSON.stringify(['ℌ🦷[', '\u0000,,,,,,,,,,,,,,']))).toBeNull();
  });

  it('when a string ends in escaped backslashes, then its closing quote still closes it', () => {
    // ["a\\",",","b"]: two commas between the strings, one inside one.
    const text = JSON.stringify(['a\\', ',', 'b']);
    expect(shape(text, 4, 2)).toBeNull();
    expect(shape(text, 4, 1)).toBe('entries');
    expect(shape(JSON.stringify(['a\\"', '[[[[[[']), 2, 10)).toBeNull();
  });

  it('when a body nests one level too deep, then depth, however it ends', () => {
    expect(shape('[[[[1]]]]')).toBeNull();
    expect(shape('[[[[[1]]]]]')).toBe('depth');
    expect(shape('{"a":{"b":{"c":{"d":{"e":1}}}}}')).toBe('depth');
    expect(shape('[[[[[')).toBe('depth');
  });

  it('when a body holds more values than the limit, then entries, counted across every container', () => {
    expect(shape(JSON.stringify({ a: Array(6).fill('x'), b: Array(5).fill('y') }))).toBe(null);
    expect(shape(JSON.stringify({ a: Array(6).fill('x'), b: Array(6).fill('y') }))).toBe('entries');
  });

  it('when 2,000,000 levels arrive, then the answer comes after reading past the limit only', () => {
    const deep = Buffer.from('['.repeat(2_000_000) + ']'.repeat(2_000_000));
    const started = process.hrtime.bigint();
    expect(jsonShapeProblem(deep, { maxDepth: 32, maxEntries: 10 })).toBe('depth');
    expect(Number(process.hrtime.bigint() - started) / 1e6).toBeLessThan(50);
  });
});
