import type { ConversationPage, ConversationSummary } from '../../shared/storage/ports/conversation-store.js';
import { pageFields, pageOf as listPageOf, storePage as listStorePage, timeIdCursor } from './list-page.js';

/** An opaque cursor: the last conversation of a page (its latest turn's time and its id). */
const cursor = timeIdCursor('updatedAt');

/** `limit` and `cursor` of a conversation listing; pages follow the listing's order (latest first). */
export const conversationPageFields = pageFields('Conversations', cursor);

/** The store page to ask for: one more than `limit`, to know whether another page follows. */
export const storePage = (q: { limit: number; cursor?: { updatedAt: number; id: string } }): ConversationPage => listStorePage(q);

/** The rows of the page and the cursor of the next one (null on the last page). */
export const pageOf = (rows: ConversationSummary[], limit: number) => listPageOf(rows, limit, cursor, (c) => c);
