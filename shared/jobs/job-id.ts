import { randomBytes } from 'node:crypto';

/** Unique, sortable-ish job ids; BullMQ forbids ':' in custom ids, so only [a-z0-9.-]. */
export function newJobId(kind: string, indexId: number): string {
  return `${kind}.${indexId}.${Date.now().toString(36)}.${randomBytes(5).toString('hex')}`;
}
