/**
 * A retrieved section given to generation, numbered as the reply will cite it ([1], [2], ...): what the
 * search interface finds for a summary or chat, what the prompt shows the model and what citations are
 * checked against.
 */
export interface Passage {
  /** 1-based citation number. */
  index: number;
  title: string;
  url?: string;
  text: string;
  /** The indexed section it is (feedback on a cited reference names it); absent for passages made up elsewhere (tests). */
  section?: { indexUid: string; docUid: string; sectionId: number };
}

export interface ConversationTurn {
  question: string;
  reply: string;
}

export interface GenerationInput {
  kind: 'summary' | 'chat';
  question: string;
  /** Earlier turns of the conversation, oldest first (chat only). */
  history: ConversationTurn[];
  passages: Passage[];
}

/** What a generation job carries (the `generate` queue). */
export interface GenerationJob {
  input: GenerationInput;
  /** The analyzer language for sentence scoring and citation checks. */
  language: string;
  /** When the API gives up on the job (ms since epoch): a job picked up later is skipped. */
  deadline: number;
  /** The client takes the answer as it is produced: ask the model to stream. */
  stream: boolean;
}

export interface GeneratedAnswer {
  /** Plain text with bracketed citations such as [1]; every number refers to a passage index. */
  text: string;
  /** Passage indexes cited, in order of first citation. */
  cited: number[];
}
