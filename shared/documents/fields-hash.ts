import { createHash } from 'node:crypto';

/** Canonical JSON (sorted keys) so the same content always hashes the same, whatever the key order. */
export function canonical(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
}

/** Fields as stored: canonical JSON, and its digest for spotting identical re-pushes. */
export function encodeFields(fields: Record<string, unknown>): { fields: string; hash: string } {
  const json = canonical(fields);
  return { fields: json, hash: createHash('sha256').update(json).digest('base64url') };
}

export const textHash = (text: string) => createHash('sha256').update(text).digest('base64url').slice(0, 32);
