import { randomBytes } from 'node:crypto';

// Random per process, then a counter: unique across processes without a syscall per id.
const PROCESS = randomBytes(4).toString('hex');
let counter = 0;

/** Unique, sortable-ish job ids; BullMQ forbids ':' in custom ids, so only [a-z0-9.-]. */
export function newJobId(kind: string, indexId: number): string {
  return `${kind}.${indexId}.${Date.now().toString(36)}.${PROCESS}${(counter++).toString(36)}`;
}
