/** A retrieved section offered to the generator, numbered as the reply will cite it ([1], [2], ...). */
export interface SourcePassage {
  /** 1-based citation number. */
  index: number;
  title: string;
  url?: string;
  text: string;
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
  passages: SourcePassage[];
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
