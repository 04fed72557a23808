import { AppError } from '../../shared/errors/app-error.js';

/** A date (YYYY-MM-DD, midnight UTC) or an ISO 8601 timestamp, as API.md's date ranges; a 400 naming `name` otherwise. */
export function parseDateParam(name: string, value: string): number {
  const ms = /^\d{4}-\d{2}-\d{2}$/.test(value) ? Date.parse(`${value}T00:00:00Z`) : Date.parse(value);
  if (Number.isNaN(ms)) throw new AppError('invalid_request', `Invalid request: ${name}: '${value}' is not a date; use YYYY-MM-DD or ISO 8601`);
  return ms;
}

/** `from` inclusive, `to` exclusive; `to` must come after `from`. */
export function parseDateRange(from: string, to: string): { from: number; to: number } {
  const range = { from: parseDateParam('from', from), to: parseDateParam('to', to) };
  if (range.to <= range.from) throw new AppError('invalid_request', 'Invalid request: to: must be after from (from is inclusive, to exclusive)');
  return range;
}
