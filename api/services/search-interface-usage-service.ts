import { clientHash } from '../../shared/auth/client-hash.js';
import { sessionHash } from '../../shared/auth/keyed-hash.js';
import { AppError } from '../../shared/errors/app-error.js';
import { FeedbackDataError, type FeedbackSigner } from '../../shared/feedback/feedback-token.js';
import { Autocomplete } from '../../shared/search/operations/autocomplete.js';
import type { Storage } from '../../shared/storage/create-storage.js';
import type { Variant } from '../../shared/storage/ports/configuration-store.js';
import type { Device } from '../../shared/storage/ports/event-store.js';
import { TARGET_SEPARATOR, VARIANT_NAMES, type LearningOptions, type SearchInterfaceService } from './search-interface-service.js';
import type { EventRecorder } from './event-recorder.js';

/** Everything of the search interface besides search itself: autocomplete, clicks, support forwards, top questions. */
export class SearchInterfaceUsageService {
  private readonly autocompletion: Autocomplete;

  constructor(
    private readonly storage: Storage,
    private readonly search: SearchInterfaceService,
    private readonly signer: FeedbackSigner,
    private readonly secret: string,
    private readonly recorder: EventRecorder,
    private readonly learning: LearningOptions = { minClients: 3 },
  ) {
    this.autocompletion = new Autocomplete(storage.events);
  }

  /**
   * Suggestions from earlier queries of the configuration. Tool: null when none match, 409 before
   * enough queries exist. UI: [] in both cases (API.md).
   */
  async autocomplete(variant: Variant, uid: string, query: string, limit: number) {
    const configuration = await this.search.configuration(variant, uid);
    const answer = await this.autocompletion.suggest({
      configurationUid: configuration.uid,
      minQueries: configuration.autocompleteMinQueries,
      evidence: { sessions: configuration.autocompleteMinSessions, clients: this.learning.minClients },
      query,
      limit,
    });
    if (!answer.ready) {
      if (variant === 'ui') return { suggestions: [] };
      const { asked, needed } = answer;
      throw new AppError(
        'conflict',
        `Autocomplete needs ${needed} earlier searches for this API Tool and ${asked} ${asked === 1 ? 'exists' : 'exist'} so far; suggestions start once ${needed - asked} more ${needed - asked === 1 ? 'search is' : 'searches are'} recorded`,
        { needed, existing: asked },
      );
    }
    if (variant === 'ui') return { suggestions: answer.suggestions.map((suggestion) => ({ suggestion })) };
    return { suggestions: answer.suggestions.length ? answer.suggestions : null };
  }

  /**
   * Records a click on a result or reference; anything garbled, forged or from the other variant is a 400.
   * `client` is the clicking client's network (api/middleware/client.ts): only its keyed hash is recorded.
   */
  async click(variant: Variant, feedbackData: string, client: string): Promise<void> {
    let payload;
    try {
      payload = this.signer.verify(feedbackData);
    } catch (err) {
      if (err instanceof FeedbackDataError) throw new AppError('invalid_request', `Invalid request: feedback_data: ${err.message}`);
      throw err;
    }
    if (payload.v !== variant) {
      throw new AppError('invalid_request', `Invalid request: feedback_data belongs to an ${VARIANT_NAMES[payload.v]}; send it to /v1/${payload.v}/feedback`);
    }
    if (payload.x) return; // a preview's click: nothing is recorded
    if (!(await this.storage.configurations.get(payload.c))) return; // the configuration was deleted since
    this.recorder.clicked(payload.e);
    await this.storage.events.recordClick({
      at: Date.now(), configurationUid: payload.c, searchEventId: payload.e, session: payload.h, client: clientHash(this.secret, client), normalized: payload.q,
      position: payload.p, target: payload.i ? `${payload.i}${TARGET_SEPARATOR}${payload.d}` : `answer${TARGET_SEPARATOR}${payload.d}`,
    });
  }

  async supportForward(variant: Variant, body: { uid: string; url: string; sessionId?: string; device: Device }): Promise<void> {
    const configuration = await this.search.configuration(variant, body.uid);
    await this.storage.events.recordSupportForward({
      at: Date.now(), configurationUid: configuration.uid, url: body.url,
      session: body.sessionId ? sessionHash(this.secret, body.sessionId) : null, device: body.device,
    });
  }

  async topQuestions(variant: Variant, uid: string) {
    return { questions: (await this.search.configuration(variant, uid)).topQuestions.map((question) => ({ question })) };
  }
}
