import { isSandboxKeyword, parseSandboxDirectives } from './sandbox-directives';

describe('sandbox directives', () => {
  it('when a keyword starts with sandbox: in any case, then it is a sandbox keyword', () => {
    expect(isSandboxKeyword('sandbox:empty')).toBe(true);
    expect(isSandboxKeyword(' SANDBOX:fail')).toBe(true);
    expect(isSandboxKeyword('vegan sandbox:empty')).toBe(false);
    expect(isSandboxKeyword(undefined)).toBe(false);
  });

  it('when several directives are given, then each is parsed', () => {
    expect(parseSandboxDirectives('sandbox:only=35; delay=5;fail_after=20')).toEqual({
      ok: true,
      directives: { only: 35, delayMs: 5, failAfter: 20 },
    });
    expect(parseSandboxDirectives('sandbox:empty;fail;unauthorized')).toEqual({
      ok: true,
      directives: { empty: true, fail: true, unauthorized: true },
    });
  });

  it.each([
    'sandbox:',
    'sandbox:bogus',
    'sandbox:only',
    'sandbox:only=x',
    'sandbox:only=-1',
    'sandbox:delay=600000',
    'sandbox:fail=1',
    'sandbox:only=1=2',
  ])('when the keyword is %j, then it is refused with a reason', (keyword) => {
    const parsed = parseSandboxDirectives(keyword);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.problem.length).toBeGreaterThan(5);
  });
});
