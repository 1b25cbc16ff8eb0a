import { decideTerminal, isTerminal } from './job-status';

describe('decideTerminal', () => {
  it.each([
    ['all requested delivered', 10, 10, { kind: 'finished' }, 'COMPLETE', null],
    ['all delivered even though the provider then failed', 10, 10, { kind: 'error', reason: 'provider_error' }, 'COMPLETE', null],
    ['the source ran dry part way', 10, 4, { kind: 'finished' }, 'PARTIAL', 'source_exhausted'],
    ['the source had nothing', 10, 0, { kind: 'finished' }, 'EMPTY', 'no_results'],
    ['the provider failed part way', 10, 4, { kind: 'error', reason: 'provider_error' }, 'PARTIAL', 'provider_error'],
    ['the time ran out part way', 10, 4, { kind: 'error', reason: 'timeout' }, 'PARTIAL', 'timeout'],
    ['credentials were refused part way', 10, 4, { kind: 'error', reason: 'provider_unauthorized' }, 'PARTIAL', 'provider_error'],
    ['credentials were refused at once', 10, 0, { kind: 'error', reason: 'provider_unauthorized' }, 'FAILED', 'provider_unauthorized'],
    ['the provider failed at once', 10, 0, { kind: 'error', reason: 'provider_error' }, 'FAILED', 'provider_error'],
    ['the time ran out before any lead', 10, 0, { kind: 'error', reason: 'timeout' }, 'FAILED', 'timeout'],
    ['our own fault before any lead', 10, 0, { kind: 'error', reason: 'internal_error' }, 'FAILED', 'internal_error'],
    ['the owner cancelled with leads', 10, 4, { kind: 'cancelled' }, 'CANCELLED', 'cancelled_by_owner'],
    ['the owner cancelled after everything arrived', 10, 10, { kind: 'cancelled' }, 'CANCELLED', 'cancelled_by_owner'],
  ] as const)('when %s, then %s with %s', (_name, requested, delivered, outcome, status, stopReason) => {
    expect(decideTerminal(requested, delivered, outcome)).toEqual({ status, stopReason });
  });

  it('when asked which statuses are terminal, then the five of docs/api.md and not queued or running', () => {
    expect(['COMPLETE', 'PARTIAL', 'EMPTY', 'FAILED', 'CANCELLED'].every((s) => isTerminal(s as never))).toBe(true);
    expect(isTerminal('queued')).toBe(false);
    expect(isTerminal('running')).toBe(false);
  });
});
