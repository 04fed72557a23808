import type { z } from 'zod';
import { AppError, type ErrorName } from '../../shared/errors/app-error.js';

/** Turns a zod failure into one 400 whose message names every bad field and what was wrong. */
export function validate<S extends z.ZodType>(schema: S, value: unknown, kind: ErrorName = 'invalid_request'): z.output<S> {
  // reportInput: zod 4 leaves the offending value out of issues by default; "missing" needs it.
  const r = schema.safeParse(value, { reportInput: true });
  if (r.success) return r.data;
  const problems = r.error.issues.slice(0, 10).map((i) => {
    const path = i.path.length ? i.path.join('.') : 'body';
    if (i.code === 'invalid_type' && i.input === undefined) return `${path}: is required`;
    if (i.code === 'unrecognized_keys') return `${path}: unknown field(s) ${i.keys.map((k) => `'${k}'`).join(', ')}`;
    return `${path}: ${i.message}`;
  });
  throw new AppError(kind, `Invalid request: ${problems.join('; ')}`, { issues: r.error.issues.map(({ path, message, code }) => ({ path, message, code })) });
}
