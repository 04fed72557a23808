import type { DocumentRef } from '../ports/document-store.js';

/** How long one listing serves a reconciler's walk before a new walk lists again. */
const LISTING_MS = 60_000;

/** One scroll page as the reconciler's listing reads it: the points' document and version, and where the next page starts. */
export interface VersionPage {
  points: { payload?: Record<string, unknown> | null }[];
  next: string | number | null;
}

/**
 * Document versions that have points in a Qdrant collection, for the reconciler's walk: one scroll of
 * the whole index per walk (Qdrant orders a scroll by point id, the walk wants document order), served
 * page by page while the walk continues where the last page ended.
 */
export class VersionListing {
  private readonly listings = new Map<string, { at: number; refs: DocumentRef[]; servedUpTo: string | null }>();

  constructor(private readonly scroll: (index: string, offset: string | number | null) => Promise<VersionPage | null>) {}

  async page(index: string, afterUid: string | null, limit: number): Promise<DocumentRef[]> {
    if (limit <= 0) return [];
    let listing = this.listings.get(index);
    if (afterUid === null || !listing || listing.servedUpTo !== afterUid || Date.now() - listing.at > LISTING_MS) {
      listing = { at: Date.now(), refs: await this.list(index), servedUpTo: null };
      this.listings.set(index, listing);
    }
    const { refs } = listing;
    let i = afterUid === null ? 0 : firstAfter(refs, afterUid);
    const page: DocumentRef[] = [];
    // A document's versions never straddle two pages: the walk resumes after its uid.
    while (i < refs.length && (page.length < limit || refs[i].uid === page[page.length - 1].uid)) page.push(refs[i++]);
    if (i >= refs.length) this.listings.delete(index);
    else listing.servedUpTo = page[page.length - 1].uid;
    return page;
  }

  forget(index: string): void {
    this.listings.delete(index);
  }

  private async list(index: string): Promise<DocumentRef[]> {
    const byDoc = new Map<string, Set<number>>();
    let offset: string | number | null = null;
    do {
      const page = await this.scroll(index, offset);
      if (!page) return [];
      for (const p of page.points) {
        const { doc, version } = (p.payload ?? {}) as { doc: string; version: number };
        let versions = byDoc.get(doc);
        if (!versions) byDoc.set(doc, (versions = new Set()));
        versions.add(version);
      }
      offset = page.next;
    } while (offset !== null);
    const uids = [...byDoc.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return uids.flatMap((uid) => [...byDoc.get(uid)!].sort((a, b) => a - b).map((version) => ({ uid, version })));
  }
}

/** Index of the first ref whose uid is greater than `after` (refs sorted by uid). */
function firstAfter(refs: DocumentRef[], after: string): number {
  let lo = 0;
  let hi = refs.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (refs[mid].uid <= after) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** A scroll answer's next offset: the generated type admits an object for "null"; a next page starts at a point id. */
export function nextOffset(next: unknown): string | number | null {
  return typeof next === 'string' || typeof next === 'number' ? next : null;
}
