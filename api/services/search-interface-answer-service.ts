import { randomUUID } from 'node:crypto';
import { sessionHash } from '../../shared/auth/keyed-hash.js';
import type { FeedbackSigner } from '../../shared/feedback/feedback-token.js';
import { followUpCandidates } from '../../shared/generation/follow-up-questions.js';
import type { GenerationResult } from '../../shared/generation/generation-queue.js';
import type { ConversationTurn, Passage } from '../../shared/generation/generation-types.js';
import { standaloneQuery } from '../../shared/generation/prompt.js';
import { normalizeQuery } from '../../shared/search/query/normalize-query.js';
import { paragraphHtml } from '../../shared/search/render/paragraph-html.js';
import { escapeHtml } from '../../shared/text/escape-html.js';
import { httpUrl } from '../../shared/text/http-url.js';
import type { Storage } from '../../shared/storage/create-storage.js';
import type { ConfigurationRecord, Variant } from '../../shared/storage/ports/configuration-store.js';
import type { StoredReference } from '../../shared/storage/ports/conversation-store.js';
import type { Device } from '../../shared/storage/ports/event-store.js';
import { AppError } from '../../shared/errors/app-error.js';
import { newEventId } from './event-recorder.js';
import type { GenerationClient, RunOptions } from './generation-client.js';
import { conversationNotFound, PreviewConversations } from './preview-conversations.js';
import { pageOf, storePage } from '../schemas/conversation-page.js';
import { signFeedback, VARIANT_NAMES, type SearchInterfaceService } from './search-interface-service.js';

/** Sections a summary or reply is written from. */
const PASSAGES = 5;
/** Earlier turns a chat reply sees. */
const HISTORY_TURNS = 5;
export const NO_RESULTS_SUMMARY = 'No relevant results were found for this question.';
export const NO_RESULTS_REPLY = "I couldn't find anything relevant to that in the indexed content.";

export interface AnswerRequest {
  uid: string;
  query: string;
  sessionId?: string;
  preview: boolean;
  device: Device;
}

export interface Reference {
  index: number;
  title: string;
  url?: string;
  content: string;
  feedback_data?: string;
}

/** Summaries and chat replies: retrieval with the configuration's search, generation on the workers, stored conversations. */
export class SearchInterfaceAnswerService {
  private readonly previews = new PreviewConversations();

  constructor(
    private readonly storage: Storage,
    private readonly search: SearchInterfaceService,
    private readonly generation: GenerationClient,
    private readonly signer: FeedbackSigner,
    private readonly secret: string,
  ) {}

  async summary(variant: Variant, req: AnswerRequest & { referenceFormat: 'html' | 'markdown' }, run: RunOptions = {}) {
    const configuration = await this.search.configuration(variant, req.uid);
    const t0 = performance.now();
    const passages = await this.search.passages(configuration, req.query, PASSAGES);
    const result = passages.length ? await this.generate('summary', req.query, [], passages, await this.language(configuration), run) : null;
    const answered = result !== null && result.cited.length > 0;
    const references: Reference[] = answered
      ? result.cited.map((i, n) => this.reference(passages[i - 1], n + 1, variant === 'ui' && req.referenceFormat === 'html' ? 'html' : 'text'))
      : [];
    const response = {
      status: answered ? ('success' as const) : ('no-relevant-results' as const),
      summary: answerHtml(answered ? result.text : NO_RESULTS_SUMMARY),
      references,
    };
    await this.record(configuration, 'summary', req, req.sessionId ? sessionHash(this.secret, req.sessionId) : null, response.status, performance.now() - t0, references);
    return response;
  }

  async chat(variant: Variant, req: AnswerRequest & { conversationId?: string; sessionId: string }, run: RunOptions = {}) {
    const configuration = await this.search.configuration(variant, req.uid);
    const t0 = performance.now();
    // SPEC's three rules: a known id continues from its latest reply; an unknown id starts a new
    // conversation under that id; no id starts a new one with a fresh id.
    const conversationId = req.conversationId ?? randomUUID();
    const session = sessionHash(this.secret, req.sessionId);
    // A conversation belongs to the session that started it: its id alone (which the conversation
    // listing shows to read keys) reads or extends nothing.
    if (req.conversationId && !req.preview) {
      const owner = await this.storage.conversations.owner(configuration.uid, conversationId);
      if (owner !== null && owner !== session) throw conversationNotFound(conversationId);
    }
    const history: ConversationTurn[] = req.preview
      ? this.previews.turns(configuration.uid, conversationId, session, HISTORY_TURNS)
      : (await this.storage.conversations.turns(configuration.uid, conversationId, HISTORY_TURNS)).map((t) => ({ question: t.question, reply: t.reply }));
    const language = await this.language(configuration);
    const retrievalQuery = standaloneQuery(history, req.query, language);
    const passages = await this.search.passages(configuration, retrievalQuery, PASSAGES);
    const generating = passages.length ? this.generate('chat', req.query, history, passages, language, run) : null;
    generating?.catch(() => {}); // awaited below; this only stops an early failure counting as unhandled
    // Follow-up questions need only the passages: found while the model writes, they cost no latency.
    // Each is a heading of a section just retrieved, answerable from the indexed content by construction
    // (its own section answers it, and a search for it finds that section), so no search checks it.
    const candidates = generating ? followUpCandidates(passages, [req.query, ...history.map((h) => h.question)], { language }) : [];
    const result = generating ? await generating : null;
    const answered = result !== null && result.cited.length > 0;
    const eventId = newEventId();
    const normalized = normalizeQuery(retrievalQuery);
    const references: Reference[] = answered
      ? result.cited.map((i, n) => {
          const p = passages[i - 1];
          const feedback = signFeedback(this.signer, { eventId, configuration, variant, normalized, session, preview: req.preview }, n + 1, { i: p.section!.indexUid, d: p.section!.docUid, s: p.section!.sectionId });
          return { ...this.reference(p, n + 1, 'text'), feedback_data: feedback };
        })
      : [];
    const text = answered ? result.text : NO_RESULTS_REPLY;
    const followUps = answered ? candidates : [];
    // The history keeps the text as written: it is the model's context, and escaping is for display.
    if (req.preview) this.previews.append(configuration.uid, conversationId, session, { question: req.query, reply: text }, HISTORY_TURNS);
    else {
      const appended = await this.storage.conversations.append(configuration.uid, conversationId, session, {
        question: req.query, reply: text, references: references.map(({ feedback_data: _, ...r }): StoredReference => r), at: Date.now(),
      });
      // Another session created the same new id a moment before this one.
      if (!appended) throw conversationNotFound(conversationId);
    }
    const status = answered ? ('success' as const) : ('no-relevant-results' as const);
    await this.record(configuration, 'chat', req, session, status, performance.now() - t0, references, eventId);
    return { status, reply: answerHtml(text), conversation_id: conversationId, follow_up_questions: followUps.map((question) => ({ question })), references };
  }

  /**
   * Conversations with activity in [from, to): id and the url of the latest topic. `mayRead` says
   * whether the caller's key may read an index: it must cover every index the configuration searches.
   */
  async conversations(
    variant: Variant, uid: string, from: number, to: number, mayRead: (indexUid: string) => boolean,
    q: { limit: number; cursor?: { updatedAt: number; id: string } },
  ) {
    const configuration = await this.search.configuration(variant, uid);
    const hidden = configuration.indexes.filter((i) => !mayRead(i));
    if (hidden.length) {
      throw new AppError('forbidden', `This API key may not read the index${hidden.length > 1 ? 'es' : ''} ${hidden.map((i) => `'${i}'`).join(', ')} this ${VARIANT_NAMES[variant]} searches; use a read key for all of its indexes`);
    }
    const page = pageOf(await this.storage.conversations.list(configuration.uid, from, to, storePage(q)), q.limit);
    return { conversations: page.rows.map((c) => ({ conversation_id: c.id, url: httpUrl(c.latestUrl) ?? null })), next_cursor: page.next_cursor };
  }

  private generate(kind: 'summary' | 'chat', question: string, history: ConversationTurn[], passages: Passage[], language: string, run: RunOptions): Promise<GenerationResult> {
    return this.generation.run({ kind, question, history, passages }, language, run);
  }

  private reference(p: Passage, index: number, format: 'html' | 'text'): Reference {
    return { index, title: p.title, ...(p.url ? { url: p.url } : {}), content: format === 'html' ? paragraphHtml(p.text) : p.text };
  }

  private async language(configuration: ConfigurationRecord): Promise<string> {
    return (await this.storage.indexes.get(configuration.indexes[0]))?.languageCode ?? 'en';
  }

  private async record(configuration: ConfigurationRecord, kind: 'summary' | 'chat', req: AnswerRequest, session: string | null, status: 'success' | 'no-relevant-results', latencyMs: number, refs: Reference[], id = newEventId()) {
    if (req.preview) return;
    await this.storage.events.recordGeneration({
      id, at: Date.now(), configurationUid: configuration.uid, kind, session,
      device: req.device, query: req.query, status, latencyMs, references: refs.map((r) => r.url ?? r.title),
    });
  }
}

/**
 * A summary or chat reply as the response carries it: one <p> of escaped text. The text is a model's
 * (which may echo markup from a document or a prompt) or copied from documents whose entities were
 * decoded when they were indexed, so it is never markup itself.
 */
function answerHtml(text: string): string {
  return `<p>${escapeHtml(text)}</p>`;
}
