import { OpenAiChatModel } from './adapters/openai-chat-model.js';
import { type ChatModel, ChatModelError } from './ports/chat-model.js';

export type { ChatMessage, ChatModel, CompletionOptions } from './ports/chat-model.js';
export { ChatModelError } from './ports/chat-model.js';

/**
 * Which text generator a process uses. `extractive` (the default) needs no model and is
 * implemented outside this module; `openai` talks to any OpenAI-compatible chat-completions
 * server (OpenAI, Ollama /v1, vLLM, llama.cpp server, LM Studio, ...).
 */
export interface LlmConfig {
  provider: 'extractive' | 'openai';
  baseUrl?: string;
  apiKey?: string;
  model?: string;
  /** One attempt, the whole streamed reply included. */
  timeoutMs: number;
  /** Extra attempts after a retryable failure, only before any text was streamed. */
  retries: number;
}

const DEFAULT_FIRST_TOKEN_MS = 20_000;

/** The configured chat model, or null for `extractive`. Throws on incomplete configuration. */
export function createChatModel(cfg: LlmConfig): ChatModel | null {
  switch (cfg.provider) {
    case 'extractive':
      return null;
    case 'openai': {
      const missing = [!cfg.baseUrl && 'QUARRY_LLM_URL (e.g. https://api.openai.com/v1 or http://127.0.0.1:11434/v1)', !cfg.model && 'QUARRY_LLM_MODEL'].filter(Boolean);
      if (missing.length) throw new ChatModelError(`QUARRY_LLM_PROVIDER=openai needs ${missing.join(' and ')}`, false);
      return new OpenAiChatModel({
        baseUrl: cfg.baseUrl!,
        apiKey: cfg.apiKey || undefined,
        model: cfg.model!,
        timeoutMs: cfg.timeoutMs,
        // Operators raise the timeout for slow (CPU) servers, where reading a long prompt delays
        // the first token too: let the first-token limit grow with it (20 s at the default 60 s).
        firstTokenTimeoutMs: Math.min(cfg.timeoutMs, Math.max(DEFAULT_FIRST_TOKEN_MS, Math.round(cfg.timeoutMs / 3))),
        retries: cfg.retries,
      });
    }
    default: {
      // Config can arrive from untyped sources (env, JSON files) despite the type.
      const provider = (cfg as { provider?: unknown }).provider;
      throw new ChatModelError(`unknown LLM provider ${JSON.stringify(provider)}; expected "extractive" or "openai"`, false);
    }
  }
}
