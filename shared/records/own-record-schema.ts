import { z } from 'zod';
import { isPlainRecord } from './own.js';

/*
 * zod's records skip a `__proto__` key without a word, and its objects read declared keys through
 * the prototype: a schema field `__proto__` vanished while a declared `constructor` was "present"
 * (a function) on every document. These check own keys only and keep every key as an own key.
 */

type Ctx = z.core.$RefinementCtx;
type Checked = { key: string; schema: z.ZodType } | null;

/** Checks each own entry with the schema `check` picks for its key (null: already reported), keeping all as own keys. */
function ownEntries(input: unknown, ctx: Ctx, expected: string, check: (key: string) => Checked): Record<string, unknown> {
  if (!isPlainRecord(input)) {
    ctx.issues.push({ code: 'invalid_type', expected: expected as 'object', input });
    return z.NEVER;
  }
  const entries: [string, unknown][] = [];
  for (const [k, v] of Object.entries(input)) {
    const picked = check(k);
    if (!picked) continue;
    const r = picked.schema.safeParse(v, { reportInput: true });
    if (r.success) entries.push([picked.key, r.data]);
    else for (const i of r.error.issues) ctx.issues.push({ ...i, path: [k, ...i.path] } as z.core.$ZodRawIssue);
  }
  // fromEntries defines own properties: `__proto__` stays a key.
  return Object.fromEntries(entries);
}

/** z.record(key, value) for names users choose; the OpenAPI document describes it as that record. */
export function ownRecord<V extends z.ZodType>(key: z.ZodType<string>, value: V) {
  const described = z.toJSONSchema(z.record(key, value), { io: 'input', unrepresentable: 'any' });
  delete described.$schema;
  return z
    .unknown()
    .transform((input, ctx) =>
      ownEntries(input, ctx, 'record', (k) => {
        const name = key.safeParse(k);
        if (name.success) return { key: name.data, schema: value };
        for (const i of name.error.issues) ctx.issues.push({ code: 'custom', message: `invalid name: ${i.message}`, path: [k], input: k });
        return null;
      }) as Record<string, z.output<V>>,
    )
    .meta(described);
}

/** z.strictObject of optional keys named by users: unknown keys are refused by name, declared ones read only when own. */
export function ownStrictObject(shape: ReadonlyMap<string, z.ZodType>) {
  return z.unknown().transform((input, ctx) => {
    const unknown = isPlainRecord(input) ? Object.keys(input).filter((k) => !shape.has(k)) : [];
    if (unknown.length) ctx.issues.push({ code: 'unrecognized_keys', keys: unknown, input: input as Record<string, unknown> });
    return ownEntries(input, ctx, 'object', (k) => (shape.has(k) ? { key: k, schema: shape.get(k)! } : null));
  });
}
