import type { PublishItem } from './ports/section-store.js';

/**
 * Groups whole documents into chunks of about `max` sections (a bigger document gets a chunk alone):
 * each chunk is one publish transaction, short enough that searches and other writers never wait long.
 */
export function chunkBySections(items: PublishItem[], max: number): PublishItem[][] {
  const chunks: PublishItem[][] = [];
  let current: PublishItem[] = [];
  let size = 0;
  for (const item of items) {
    const n = Math.max(1, item.sections?.length ?? 1);
    if (current.length && size + n > max) {
      chunks.push(current);
      current = [];
      size = 0;
    }
    current.push(item);
    size += n;
  }
  if (current.length) chunks.push(current);
  return chunks;
}
