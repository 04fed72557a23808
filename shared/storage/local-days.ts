export const HOUR_MS = 3_600_000;

/** True when `tz` is an IANA zone this runtime knows (what Intl accepts). */
export function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

const formats = new Map<string, Intl.DateTimeFormat>();
function format(tz: string) {
  let f = formats.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: tz, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit',
    });
    formats.set(tz, f);
  }
  return f;
}

/** The wall-clock time of instant `t` in `tz`, read as if it were UTC. */
function wallClock(t: number, tz: string): number {
  const p = Object.fromEntries(format(tz).formatToParts(t).map((x) => [x.type, x.value]));
  return Date.UTC(Number(p.year), Number(p.month) - 1, Number(p.day), Number(p.hour), Number(p.minute), Number(p.second));
}

/** The first instant of local date `date` (a UTC midnight naming it) in `tz`, cut down to a whole UTC hour. */
function dayStart(date: number, tz: string): number {
  let t = date - (wallClock(date, tz) - date);
  // A second pass settles offsets that change between the guess and the answer (DST).
  t = date - (wallClock(t, tz) - t);
  return Math.floor(t / HOUR_MS) * HOUR_MS;
}

export interface LocalDay {
  /** YYYY-MM-DD in the zone. */
  day: string;
  /** [start, end) in ms, clipped to the range asked for. */
  start: number;
  end: number;
}

/**
 * The local days of `tz` that [from, to) touches. A day starts at local midnight cut down to the
 * whole UTC hour (exact in every zone whose offset is whole hours; in a half-hour zone such as
 * Asia/Kolkata the day starts at 23:30 local), so that hourly rollups answer exactly and every
 * storage backend draws the same lines.
 */
export function localDays(from: number, to: number, tz: string): LocalDay[] {
  const DAY = 86_400_000;
  let date = Math.floor(wallClock(from, tz) / DAY) * DAY;
  while (dayStart(date + DAY, tz) <= from) date += DAY;
  const out: LocalDay[] = [];
  for (let start = from; start < to; date += DAY) {
    const end = Math.min(to, dayStart(date + DAY, tz));
    if (end > start) out.push({ day: new Date(date).toISOString().slice(0, 10), start, end });
    start = end;
  }
  return out;
}

/**
 * The local days of [from, to) around events seen from `firstAt` to `lastAt`: every day holding one
 * of them, and perhaps a day either side. A century-long range then costs a few days, not 36,500.
 */
export function localDaysAround(from: number, to: number, tz: string, firstAt: number, lastAt: number): LocalDay[] {
  // No local day is longer than 26 hours.
  const margin = 26 * HOUR_MS;
  return localDays(Math.max(from, firstAt - margin), Math.min(to, lastAt + margin), tz);
}

/** Index of the day holding instant `t` (days sorted and contiguous); -1 outside them. */
export function dayIndex(days: LocalDay[], t: number): number {
  if (days.length === 0 || t < days[0].start || t >= days[days.length - 1].end) return -1;
  let lo = 0;
  let hi = days.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (days[mid].start <= t) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}
