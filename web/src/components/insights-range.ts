/**
 * Date ranges of the insights page in the browser's time zone: whole local days, `from` inclusive and `to`
 * inclusive as the user picks them, sent as the instants of the local midnights that bound them.
 */
export interface DayRange {
  /** YYYY-MM-DD, local, inclusive. */
  from: string;
  /** YYYY-MM-DD, local, inclusive. */
  to: string;
}

export const PRESETS = [7, 30, 90];
export const DEFAULT_DAYS = 30;

const pad = (n: number) => String(n).padStart(2, '0');
export const ymd = (d: Date) => `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;

/** Local midnight starting the day `date` (YYYY-MM-DD) plus `add` days; Date handles month ends and DST. */
export function midnight(date: string, add = 0): Date {
  const [y, m, d] = date.split('-').map(Number);
  return new Date(y, m - 1, d + add);
}

export const isDate = (s: string | null | undefined): s is string => !!s && /^\d{4}-\d{2}-\d{2}$/.test(s) && !Number.isNaN(midnight(s).getTime());

/** The last `days` days, today included. */
export function lastDays(days: number, today = new Date()): DayRange {
  const t = ymd(today);
  return { from: ymd(midnight(t, 1 - days)), to: t };
}

/** Days in the range, counted on the calendar (a DST day is still one day). */
export function dayCount(r: DayRange): number {
  const utc = (s: string) => {
    const [y, m, d] = s.split('-').map(Number);
    return Date.UTC(y, m - 1, d);
  };
  return Math.round((utc(r.to) - utc(r.from)) / 86_400_000) + 1;
}

/** The range of the same length that ends the day before this one starts. */
export function previousRange(r: DayRange): DayRange {
  const n = dayCount(r);
  return { from: ymd(midnight(r.from, -n)), to: ymd(midnight(r.from, -1)) };
}

/** Every local day of the range, in order. */
export function daysOf(r: DayRange): string[] {
  const out: string[] = [];
  for (let i = 0, n = dayCount(r); i < n; i++) out.push(ymd(midnight(r.from, i)));
  return out;
}

export const timeZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone;

/** The query parameters of the insights routes for a range. */
export function rangeParams(r: DayRange) {
  return { from: midnight(r.from).toISOString(), to: midnight(r.to, 1).toISOString(), tz: timeZone() };
}
