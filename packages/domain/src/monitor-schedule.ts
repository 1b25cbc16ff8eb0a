import { CronExpressionParser } from 'cron-parser';
import type { FieldProblem } from './errors';

// A monitor's schedule (docs/decisions/022-monitors.md): elapsed time (`every`, an ISO 8601 duration)
// or wall-clock time (`cron`, five fields, read in an IANA time zone). The next time is always
// computed from PostgreSQL's stored due time, never from when an alarm happened to fire.

export type MonitorSchedule = { every: string } | { cron: string; timezone: string };

// Elapsed-time units only: a month or a year has no fixed length, so those belong to a cron schedule.
const DURATION = /^P(?!$)(?:(\d+)W)?(?:(\d+)D)?(?:T(?!$)(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$/;
const UNIT_MS = [7 * 86_400_000, 86_400_000, 3_600_000, 60_000, 1_000];

/** How many occurrences of a cron schedule are compared to find its shortest gap. */
const CRON_GAPS_CHECKED = 200;

/** The length of an ISO 8601 duration of weeks, days, hours, minutes and seconds, or null. */
export function durationMs(iso: string): number | null {
  const match = DURATION.exec(iso);
  if (!match) return null;
  return match.slice(1).reduce((total, part, i) => total + (part ? Number(part) * UNIT_MS[i]! : 0), 0);
}

function isTimeZone(name: string): boolean {
  try {
    // Intl knows the IANA database; an offset such as "+01:00" is not a zone whose rules can change.
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return /^[A-Za-z]/.test(name);
  } catch {
    return false;
  }
}

function cronAfter(schedule: { cron: string; timezone: string }, after: Date): Date {
  return CronExpressionParser.parse(schedule.cron, { currentDate: after, tz: schedule.timezone }).next().toDate();
}

/**
 * Every problem with a schedule, pointed at from `base` (e.g. "#/schedule"): the form, the duration or the
 * cron expression and its zone, and an interval shorter than `minIntervalMs` (for cron, the shortest gap
 * between its next occurrences).
 */
export function scheduleProblems(schedule: MonitorSchedule, minIntervalMs: number, base = '#/schedule'): FieldProblem[] {
  const minimum = `at least ${minIntervalMs} ms apart (MONITOR_MIN_INTERVAL_MS)`;
  if ('every' in schedule) {
    const ms = durationMs(schedule.every);
    if (ms === null) {
      return [
        {
          pointer: `${base}/every`,
          detail: 'every must be an ISO 8601 duration of weeks, days, hours, minutes or seconds, such as PT6H or P1D',
        },
      ];
    }
    return ms < minIntervalMs ? [{ pointer: `${base}/every`, detail: `every must be ${minimum}` }] : [];
  }
  const problems: FieldProblem[] = [];
  const zoneOk = isTimeZone(schedule.timezone);
  if (!zoneOk) problems.push({ pointer: `${base}/timezone`, detail: 'timezone must be an IANA time zone, such as Europe/Berlin or UTC' });
  if (schedule.cron.trim().split(/\s+/).length !== 5) {
    problems.push({
      pointer: `${base}/cron`,
      detail: 'cron must have five fields: minute hour day-of-month month day-of-week',
    });
    return problems;
  }
  try {
    CronExpressionParser.parse(schedule.cron);
  } catch (error) {
    problems.push({ pointer: `${base}/cron`, detail: `cron is not valid: ${(error as Error).message}` });
    return problems;
  }
  if (!zoneOk) return problems;
  const gap = shortestCronGapMs(schedule);
  if (gap === null) problems.push({ pointer: `${base}/cron`, detail: 'cron never comes round' });
  else if (gap < minIntervalMs) problems.push({ pointer: `${base}/cron`, detail: `cron's runs must be ${minimum}` });
  return problems;
}

function shortestCronGapMs(schedule: { cron: string; timezone: string }): number | null {
  try {
    const dates = CronExpressionParser.parse(schedule.cron, { currentDate: new Date(), tz: schedule.timezone }).take(CRON_GAPS_CHECKED);
    if (dates.length < 2) return dates.length === 1 ? Number.POSITIVE_INFINITY : null;
    let shortest = Number.POSITIVE_INFINITY;
    for (let i = 1; i < dates.length; i += 1) shortest = Math.min(shortest, dates[i]!.getTime() - dates[i - 1]!.getTime());
    return shortest;
  } catch {
    return null;
  }
}

/** The first run of a new (or newly scheduled, or resumed) monitor: the schedule's first time after `now`. */
export function firstRunAfter(schedule: MonitorSchedule, now: Date): Date {
  if ('every' in schedule) return new Date(now.getTime() + durationMs(schedule.every)!);
  return cronAfter(schedule, now);
}

/**
 * The run after the one due at `dueAt`, taken at `now`: the schedule's first time after both. Ticks
 * missed while the fleet was down are not made up one by one: the backlog was one run (this one), and
 * the next lies in the future. `every` keeps its grid (dueAt + k × interval).
 */
export function nextRunAfter(schedule: MonitorSchedule, dueAt: Date, now: Date): Date {
  if ('every' in schedule) {
    const interval = durationMs(schedule.every)!;
    const steps = Math.max(1, Math.floor((now.getTime() - dueAt.getTime()) / interval) + 1);
    return new Date(dueAt.getTime() + steps * interval);
  }
  return cronAfter(schedule, dueAt.getTime() > now.getTime() ? dueAt : now);
}
