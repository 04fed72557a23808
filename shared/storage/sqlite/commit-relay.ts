import cluster from 'node:cluster';
import { AppError, type ErrorName } from '../../errors/app-error.js';
import type { DocumentWrite, WriteOutcome } from '../ports/document-store.js';

/**
 * One commit thread for all the API processes of a host (QUARRY_API_PROCESSES on one data folder).
 * SQLite lets one writer in at a time: a commit thread in each process would queue on the file's
 * lock with the busy handler's back-off sleeps, in groups each process forms alone (measured: two
 * processes accepted half the single pushes one did). The cluster's primary keeps the one thread;
 * each process sends its writes there and gets the outcomes, or the same errors, back.
 */
export interface Committer {
  commit(writes: DocumentWrite[]): Promise<WriteOutcome[]>;
  /** Rejects with the reason while no thread takes commits (for /readyz). */
  ping(): Promise<void>;
  close(): Promise<void>;
}

const REQUEST = 'quarry:commit';
const ANSWER = 'quarry:commit-answer';
const PING_TIMEOUT_MS = 2000;

type Request = { type: typeof REQUEST; id: number; writes?: DocumentWrite[] };
type Failure = { message: string; kind?: ErrorName; details?: unknown; headers?: Record<string, string>; internal?: string };
type Answer = { type: typeof ANSWER; id: number; outcomes?: WriteOutcome[]; error?: Failure };

const failure = (err: unknown): Failure =>
  err instanceof AppError
    ? { message: err.message, kind: err.kind, details: err.details, headers: err.headers, internal: err.internal }
    : { message: err instanceof Error ? err.message : String(err) };
function rebuilt(f: Failure): Error {
  if (!f.kind) return new Error(f.message);
  const e = new AppError(f.kind, f.message, f.details, f.headers);
  return f.internal === undefined ? e : e.withInternal(f.internal);
}

/** Primary: commits what the API processes send on `committer` (requests without writes are pings). */
export function serveCommits(committer: Committer): void {
  cluster.on('message', (worker, m: Request) => {
    if (m?.type !== REQUEST) return;
    const reply = (a: Omit<Answer, 'type' | 'id'>) => {
      if (worker.isConnected()) worker.send({ type: ANSWER, id: m.id, ...a } satisfies Answer);
    };
    const done = m.writes ? committer.commit(m.writes) : committer.ping().then(() => []);
    done.then((outcomes) => reply({ outcomes }), (err) => reply({ error: failure(err) }));
  });
}

/** An API process of a cluster: commits through the primary's thread. */
export class RelayedCommits implements Committer {
  private readonly waiting = new Map<number, { resolve: (o: WriteOutcome[]) => void; reject: (e: Error) => void }>();
  private next = 0;

  constructor() {
    process.on('message', (m: Answer) => {
      if (m?.type !== ANSWER) return;
      const w = this.waiting.get(m.id);
      this.waiting.delete(m.id);
      if (m.error) w?.reject(rebuilt(m.error));
      else w?.resolve(m.outcomes!);
    });
  }

  commit(writes: DocumentWrite[]): Promise<WriteOutcome[]> {
    return this.ask(writes);
  }

  async ping(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('commit thread: the primary did not answer')), PING_TIMEOUT_MS);
    });
    await Promise.race([this.ask(), late]).finally(() => clearTimeout(timer));
  }

  /** Lets commits already sent finish (their callers were promised durability). */
  async close(): Promise<void> {
    for (let i = 0; i < 200 && this.waiting.size > 0; i++) await new Promise((r) => setTimeout(r, 25));
  }

  private ask(writes?: DocumentWrite[]): Promise<WriteOutcome[]> {
    return new Promise((resolve, reject) => {
      const id = this.next++;
      this.waiting.set(id, { resolve, reject });
      process.send!({ type: REQUEST, id, writes } satisfies Request);
    });
  }
}
