import type { Response } from 'express';

/**
 * 204 for an accepted write. Its version (its place in the order of all writes) lets a client tell
 * which of its racing requests won; absent when the write changed nothing.
 */
export function sendAccepted(res: Response, version: number | null): void {
  if (version !== null) res.set('X-Quarry-Version', String(version));
  res.status(204).end();
}
