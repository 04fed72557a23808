// Solr date math (DateMathParser): an anchor (`NOW` or an ISO 8601 instant) followed by any number of
// `+N UNIT`, `-N UNIT` and `/UNIT` (round down) operations, applied left to right, all in UTC.
// Month and year arithmetic clamps the day of month like java.util.Calendar (Jan 31 + 1 MONTH = Feb 28/29).

export class DateMathError extends Error {
  constructor(
    readonly position: number,
    message: string,
  ) {
    super(`Invalid date at position ${position}: ${message}`);
    this.name = 'DateMathError';
  }
}

type Unit = 'year' | 'month' | 'day' | 'hour' | 'minute' | 'second' | 'milli';

const UNITS: Record<string, Unit> = {
  YEAR: 'year', YEARS: 'year',
  MONTH: 'month', MONTHS: 'month',
  DAY: 'day', DAYS: 'day', DATE: 'day',
  HOUR: 'hour', HOURS: 'hour',
  MINUTE: 'minute', MINUTES: 'minute',
  SECOND: 'second', SECONDS: 'second',
  MILLI: 'milli', MILLIS: 'milli', MILLISECOND: 'milli', MILLISECONDS: 'milli',
};

const UNIT_NAMES = 'YEAR(S), MONTH(S), DAY(S), DATE, HOUR(S), MINUTE(S), SECOND(S), MILLI(S), MILLISECOND(S)';

// Anchored and without nested quantifiers, so matching is linear.
const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?(Z)?/;
const OP = /([+-])(\d{1,9})([A-Za-z]+)|\/([A-Za-z]+)/y;

const MS: Partial<Record<Unit, number>> = { day: 86_400_000, hour: 3_600_000, minute: 60_000, second: 1000, milli: 1 };

function parseAnchor(expr: string, now: Date): [number, number] {
  if (expr.startsWith('NOW')) return [now.getTime(), 3];
  const m = ISO.exec(expr);
  if (!m) throw new DateMathError(0, "expected 'NOW' or an ISO 8601 date such as 2024-01-31 or 2024-01-31T12:00:00Z");
  const [year, month, day, hour = 0, minute = 0, second = 0] = m.slice(1, 7).map((v) => (v === undefined ? undefined : Number(v)));
  const millis = m[7] ? Number(m[7].slice(0, 3).padEnd(3, '0')) : 0;
  // setUTCFullYear, unlike Date.UTC, does not read years 0-99 as 1900-1999.
  const d = new Date(Date.UTC(2000, 0, 1, hour, minute, second, millis));
  const t = d.setUTCFullYear(year!, month! - 1, day!);
  // Date.UTC silently rolls 2024-02-30 over to March; a date that does not round-trip is invalid.
  if (d.getUTCFullYear() !== year || d.getUTCMonth() !== month! - 1 || d.getUTCDate() !== day || d.getUTCHours() !== hour ||
      d.getUTCMinutes() !== minute || d.getUTCSeconds() !== second) {
    throw new DateMathError(0, `'${m[0]}' is not a valid date`);
  }
  return [t, m[0].length];
}

function addMonths(t: number, months: number): number {
  const d = new Date(t);
  const total = d.getUTCFullYear() * 12 + d.getUTCMonth() + months;
  const year = Math.floor(total / 12);
  const month = total - year * 12;
  const probe = new Date(0);
  probe.setUTCFullYear(year, month + 1, 0);
  const day = Math.min(d.getUTCDate(), probe.getUTCDate());
  d.setUTCFullYear(year, month, day);
  return d.getTime();
}

function add(t: number, amount: number, unit: Unit): number {
  if (unit === 'year') return addMonths(t, amount * 12);
  if (unit === 'month') return addMonths(t, amount);
  return t + amount * MS[unit]!;
}

function roundDown(t: number, unit: Unit): number {
  const d = new Date(t);
  const y = d.getUTCFullYear();
  switch (unit) {
    case 'year': return new Date(0).setUTCFullYear(y, 0, 1);
    case 'month': return new Date(0).setUTCFullYear(y, d.getUTCMonth(), 1);
    default: {
      const size = MS[unit]!;
      return t - (((t % size) + size) % size);
    }
  }
}

function unitAt(name: string, position: number): Unit {
  const unit = UNITS[name.toUpperCase()];
  if (!unit) throw new DateMathError(position, `unknown unit '${name}'; expected one of ${UNIT_NAMES}`);
  return unit;
}

/**
 * Evaluates a Solr date-math expression: `NOW`, `NOW-7DAYS`, `NOW+1MONTH/DAY`, `2024-01-01`,
 * `2024-01-01T00:00:00Z+1YEAR`. Rounding (`/DAY`) is in UTC. Throws DateMathError on malformed input.
 */
export function resolveDateMath(expr: string, now: Date): Date {
  let [t, i] = parseAnchor(expr, now);
  while (i < expr.length) {
    OP.lastIndex = i;
    const m = OP.exec(expr);
    if (!m) {
      throw new DateMathError(i, `expected '+N<UNIT>', '-N<UNIT>' or '/<UNIT>' but found '${expr.slice(i, i + 10)}'`);
    }
    if (m[4] !== undefined) t = roundDown(t, unitAt(m[4], i + 1));
    else {
      const amount = Number(m[2]) * (m[1] === '-' ? -1 : 1);
      t = add(t, amount, unitAt(m[3], i + 1 + m[2].length));
    }
    if (!Number.isFinite(t) || Math.abs(t) > 8.64e15) throw new DateMathError(i, 'the date is out of range');
    i += m[0].length;
  }
  return new Date(t);
}

/** True when a value looks like date math or an ISO date rather than free text. */
export function isDateMath(value: string): boolean {
  return value.startsWith('NOW') || ISO.test(value);
}
