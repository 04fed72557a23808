/** Port for text generation: an OpenAI-compatible chat-completions server, or none (extractive). */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface CompletionOptions {
  /** Aborts the request (client gone, timeout): the promise rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Called with each piece of text as the model produces it (streaming). */
  onDelta?: (text: string) => void;
  maxTokens?: number;
  temperature?: number;
}

export interface ChatModel {
  /** e.g. "openai:gpt-4o-mini@https://api.openai.com/v1" */
  readonly id: string;
  /** The whole reply text; with onDelta, pieces arrive as they are generated. */
  complete(messages: ChatMessage[], options?: CompletionOptions): Promise<string>;
}

/**
 * `retryable`: a flaky dependency (timeout, 429, 5xx, connection refused) as opposed to a configuration
 * problem (bad URL, 401/404, unknown model) that retrying cannot fix. `status` is the HTTP status, if any.
 */
export class ChatModelError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'ChatModelError';
  }
}
