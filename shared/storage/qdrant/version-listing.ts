import type { DocumentRef } from '../ports/document-store.js';

/** How long one listing serves a reconciler's walk before a new walk lists again. */
const LISTING_MS = 60_000;
/** Points per scroll page while listing. */
const SCROLL_PAGE = 1000;

/** The scroll request of one listing page (the adapter adds its collection and any filter). */
export interface ListingScroll {
  limit: number;
  offset: string | number | null;
  with_payload: string[];
  with_vector: false;
}

/** What Qdrant's scroll answers, as far as a listing reads it; undefined: the collection does not exist. */
type ScrollAnswer = { points: { payload?: Record<string, unknown> | null }[]; next_page_offset?: unknown } | undefined;

/**
 * Document versions that have points in a Qdrant collection, for the reconciler's walk: one scroll of
 * the whole index per walk (Qdrant orders a scroll by point id, the walk wants document order), served
 * page by page while the walk continues where the last page ended.
 */
export class VersionListing {
  private readonly listings = new Map<string, { at: number; refs: DocumentRef[]; servedUpTo: string | null }>();

  constructor(private readonly scroll: (index: string, request: ListingScroll) => Promise<ScrollAnswer>) {}

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
      const page = await this.scroll(index, { limit: SCROLL_PAGE, offset, with_payload: ['doc', 'version'], with_vector: false });
      if (!page) return [];
      for (const p of page.points) {
        const { doc, version } = (p.payload ?? {}) as { doc: string; version: number };
        let versions = byDoc.get(doc);
        if (!versions) byDoc.set(doc, (versions = new Set()));
        versions.add(version);
      }
      // The generated type admits an object for "null"; a next page starts at a point id.
      const next = page.next_page_offset;
      offset = typeof next === 'string' || typeof next === 'number' ? next : null;
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
