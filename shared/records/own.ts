/**
 * Reading and building records keyed by names users choose (schema fields, document fields, filter
 * fields, attributes, configuration keys). Such a name may be `constructor`, `toString` or
 * `__proto__`: a plain `record[name]` would find Object.prototype's member for the first two, and
 * `record[name] = v` would replace the prototype (or do nothing) for the last. Both are plain data here.
 */

/** The value stored under `key` in the record itself; never one inherited from a prototype. */
export function own<T>(record: Readonly<Record<string, T>> | null | undefined, key: string): T | undefined {
  return record !== null && record !== undefined && Object.hasOwn(record, key) ? record[key] : undefined;
}

/**
 * An empty record to fill with `record[name] = value`: without a prototype, `__proto__` is an
 * ordinary key and no inherited member answers a read. JSON.stringify and Object.entries treat it
 * like any object.
 */
export const keyedByUser = <T>(): Record<string, T> => Object.create(null) as Record<string, T>;

/** A JSON object (not an array, not null): what a record of user-named keys arrives as. */
export const isPlainRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && [Object.prototype, null].includes(Object.getPrototypeOf(v));
