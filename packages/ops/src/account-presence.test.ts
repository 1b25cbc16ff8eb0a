import { accountPresence } from './account-presence';

describe('accountPresence', () => {
  const clock = () => {
    let t = 10_000;
    return { now: () => t, advance: (ms: number) => (t += ms) };
  };

  it('when another account has work here, then it is present; an account is never "another" to itself', () => {
    const presence = accountPresence();
    presence.arrive('a');
    expect(presence.othersPresent('a')).toBe(false);
    expect(presence.othersPresent('b')).toBe(true);
    presence.arrive('b');
    expect(presence.othersPresent('a')).toBe(true);
  });

  it('when another account left less than recentMs ago, then it is still present; after, it is not', () => {
    const time = clock();
    const presence = accountPresence({ recentMs: 1_000, now: time.now });
    presence.arrive('a');
    presence.arrive('b');
    presence.leave('b');
    time.advance(999);
    expect(presence.othersPresent('a')).toBe(true);
    time.advance(1);
    expect(presence.othersPresent('a')).toBe(false);
  });

  it('when an account has several pieces of work, then it stays at work until the last one ends', () => {
    const time = clock();
    const presence = accountPresence({ recentMs: 1_000, now: time.now });
    presence.arrive('b');
    presence.arrive('b');
    presence.leave('b');
    time.advance(5_000);
    expect(presence.othersPresent('a')).toBe(true);
    expect(presence.count('b')).toBe(1);
    presence.leave('b');
    expect(presence.count('b')).toBe(0);
    time.advance(1_000);
    expect(presence.othersPresent('a')).toBe(false);
  });

  it('when accounts leave in turn, then one that came back and left again counts from its last leaving, not its first', () => {
    const time = clock();
    const presence = accountPresence({ recentMs: 1_000, now: time.now });
    presence.arrive('b');
    presence.leave('b');
    presence.arrive('c');
    presence.leave('c');
    time.advance(600);
    presence.arrive('b');
    presence.leave('b'); // b is now behind c in the leaving order
    time.advance(600); // c is stale (1,200 ms), b is not (600 ms)
    expect(presence.othersPresent('a')).toBe(true);
    expect(presence.othersPresent('b')).toBe(false);
  });
});
