import { join } from 'node:path';
import Database from 'better-sqlite3';

/**
 * A read-only view of Quarry's SQLite file. Waiting for a drain polls here, not GET /status: the
 * status endpoint counts every document of the index on the API's event loop, so polling it often
 * would slow down the very pipeline being timed. Pending documents are counted through the
 * partial index `documents_pending`, which costs O(pending).
 */
export class DbProbe {
  private readonly db: Database.Database;
  /** search.db: sections and the change feed (workers write it). */
  readonly search: Database.Database;
  private readonly q;

  constructor(dataDir: string) {
    this.db = new Database(join(dataDir, 'quarry.db'), { readonly: true });
    this.db.pragma('busy_timeout = 10000');
    this.search = new Database(join(dataDir, 'search.db'), { readonly: true });
    this.search.pragma('busy_timeout = 10000');
    const pendingSql = (hint: string) => `SELECT count(*) FROM documents ${hint} WHERE status = 'pending' AND index_id = ?`;
    let pending;
    try {
      pending = this.db.prepare<[number], number>(pendingSql('INDEXED BY documents_pending')).pluck();
    } catch {
      pending = this.db.prepare<[number], number>(pendingSql('')).pluck(); // the index was renamed: let the planner choose
    }
    this.q = {
      indexId: this.db.prepare<[string], number>('SELECT id FROM indexes WHERE uid = ?').pluck(),
      pending,
    };
  }

  indexId(uid: string): number {
    const id = this.q.indexId.get(uid);
    if (id === undefined) throw new Error(`index ${uid} not found in the database`);
    return id;
  }

  pending(indexId: number): number {
    return this.q.pending.get(indexId)!;
  }

  get raw(): Database.Database {
    return this.db;
  }

  close() {
    this.db.close();
    this.search.close();
  }
}
