import { durationMs, firstRunAfter, nextRunAfter, scheduleProblems } from './monitor-schedule';

const HOUR = 3_600_000;

describe('monitor schedules', () => {
  it('when a weekly cron in Europe/Berlin spans the October DST change, then each run is 07:00 local: 05:00Z in summer, 06:00Z in winter', () => {
    const schedule = { cron: '0 7 * * 1', timezone: 'Europe/Berlin' };
    // Monday 2026-10-19 07:00 CEST (UTC+2); the clocks go back on Sunday 2026-10-25.
    const before = nextRunAfter(schedule, new Date('2026-10-19T05:00:00Z'), new Date('2026-10-19T05:00:01Z'));
    expect(before.toISOString()).toBe('2026-10-26T06:00:00.000Z');
    expect(before.getTime() - new Date('2026-10-19T05:00:00Z').getTime()).toBe(7 * 24 * HOUR + HOUR);
    const after = nextRunAfter(schedule, before, new Date(before.getTime() + 1));
    expect(after.toISOString()).toBe('2026-11-02T06:00:00.000Z');
  });

  it('when a daily cron in America/New_York spans the March DST change, then the day in between is 23 hours long', () => {
    const schedule = { cron: '30 9 * * *', timezone: 'America/New_York' };
    const saturday = firstRunAfter(schedule, new Date('2026-03-07T12:00:00Z'));
    expect(saturday.toISOString()).toBe('2026-03-07T14:30:00.000Z');
    const sunday = nextRunAfter(schedule, saturday, new Date(saturday.getTime() + 1));
    expect(sunday.toISOString()).toBe('2026-03-08T13:30:00.000Z');
    expect(sunday.getTime() - saturday.getTime()).toBe(23 * HOUR);
  });

  it('when the fleet was down over several ticks, then the next run is the first one after now, on the same grid', () => {
    const dueAt = new Date('2026-01-01T00:00:00Z');
    const now = new Date('2026-01-01T03:30:00Z');
    expect(nextRunAfter({ every: 'PT1H' }, dueAt, now).toISOString()).toBe('2026-01-01T04:00:00.000Z');
    expect(nextRunAfter({ every: 'PT1H' }, dueAt, dueAt).toISOString()).toBe('2026-01-01T01:00:00.000Z');
    expect(nextRunAfter({ cron: '0 * * * *', timezone: 'UTC' }, dueAt, now).toISOString()).toBe('2026-01-01T04:00:00.000Z');
  });

  it('when durations are read, then weeks to seconds count and months, years, fractions and empty parts do not', () => {
    expect(durationMs('PT6H')).toBe(6 * HOUR);
    expect(durationMs('P1W2DT3H4M5S')).toBe(9 * 24 * HOUR + 3 * HOUR + 4 * 60_000 + 5_000);
    for (const bad of ['P1M', 'P1Y', 'PT0.5H', 'P', 'PT', '6h', 'PT6H ', '']) expect(durationMs(bad)).toBeNull();
  });

  it('when a schedule is malformed or too frequent, then each problem is pointed at', () => {
    expect(scheduleProblems({ every: 'PT30M' }, HOUR)).toEqual([
      { pointer: '#/schedule/every', detail: expect.stringMatching(/at least 3600000 ms/) },
    ]);
    expect(scheduleProblems({ every: 'PT1H' }, HOUR)).toEqual([]);
    expect(scheduleProblems({ every: 'P1M' }, HOUR)[0]!.pointer).toBe('#/schedule/every');
    expect(scheduleProblems({ cron: '*/5 * * * *', timezone: 'UTC' }, HOUR)[0]!.detail).toMatch(/at least/);
    expect(scheduleProblems({ cron: '0 7 * * 1', timezone: 'Mars/Olympus' }, HOUR).map((p) => p.pointer)).toEqual(['#/schedule/timezone']);
    expect(scheduleProblems({ cron: '0 7 * * 1 2026', timezone: 'UTC' }, HOUR).map((p) => p.pointer)).toEqual(['#/schedule/cron']);
    expect(scheduleProblems({ cron: '61 7 * * 1', timezone: 'UTC' }, HOUR)[0]!.detail).toMatch(/not valid/);
    expect(scheduleProblems({ cron: '0 7 * * 1', timezone: 'Europe/Berlin' }, HOUR)).toEqual([]);
    expect(scheduleProblems({ cron: '0 7 * * 1', timezone: '+01:00' }, HOUR).map((p) => p.pointer)).toEqual(['#/schedule/timezone']);
  });
});
