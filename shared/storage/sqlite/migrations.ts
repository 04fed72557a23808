import type { Db } from './open-database.js';

/** Append-only: a migration, once shipped, is never edited; add a new one instead. */
export const DOCUMENT_MIGRATIONS: string[] = [
  `
  CREATE TABLE meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
  INSERT INTO meta (key, value) VALUES ('seq', 0);

  CREATE TABLE indexes (
    id INTEGER PRIMARY KEY,
    uid TEXT NOT NULL UNIQUE,
    language_code TEXT NOT NULL,
    schema TEXT NOT NULL,
    embedder TEXT,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  );

  CREATE TABLE api_keys (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    hash TEXT NOT NULL UNIQUE,
    prefix TEXT NOT NULL,
    permissions TEXT NOT NULL,
    indexes TEXT,
    created_at INTEGER NOT NULL,
    revoked_at INTEGER
  );

  -- fields NULL marks a delete that the pipeline has not yet removed from the search indexes.
  -- A rowid table: rows hold whole documents, which WITHOUT ROWID b-trees store poorly (2x slower writes).
  CREATE TABLE documents (
    id INTEGER PRIMARY KEY,
    index_id INTEGER NOT NULL REFERENCES indexes(id) ON DELETE CASCADE,
    uid TEXT NOT NULL,
    fields TEXT,
    hash TEXT,
    version INTEGER NOT NULL,
    indexed_version INTEGER,
    status TEXT NOT NULL CHECK (status IN ('pending', 'indexed', 'failed')),
    job TEXT,
    error TEXT,
    updated_at INTEGER NOT NULL,
    UNIQUE (index_id, uid)
  );
  CREATE INDEX documents_pending ON documents (status, updated_at) WHERE status = 'pending';
  -- Progress counts come from these indexes alone, without reading the documents' fields.
  CREATE INDEX documents_status ON documents (index_id, status);
  CREATE INDEX documents_deleted ON documents (index_id, status) WHERE fields IS NULL;

  `,
];

/**
 * The search file: written by the workers only, so publishing never holds the lock the API's
 * document commits need. `live` holds the version each document's sections come from; versions
 * only move forward, and a delete leaves its version behind so a late, older write cannot return.
 */
export const SEARCH_MIGRATIONS: string[] = [
  `
  CREATE TABLE sections (
    id INTEGER PRIMARY KEY,
    index_id INTEGER NOT NULL,
    doc_uid TEXT NOT NULL,
    version INTEGER NOT NULL,
    ord INTEGER NOT NULL,
    title TEXT NOT NULL,
    anchor TEXT,
    text TEXT NOT NULL,
    hash TEXT NOT NULL,
    vector BLOB,
    vector_model TEXT
  );
  CREATE INDEX sections_doc ON sections (index_id, doc_uid);
  CREATE INDEX sections_hash ON sections (hash);

  CREATE TABLE live (
    index_id INTEGER NOT NULL,
    uid TEXT NOT NULL,
    version INTEGER NOT NULL,
    deleted INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (index_id, uid)
  ) WITHOUT ROWID;
  `,
  // Which schema field a section came from (DisMax scores per field), and the log of published
  // documents that in-memory search engines tail to stay current.
  `
  ALTER TABLE sections ADD COLUMN field TEXT NOT NULL DEFAULT '';
  CREATE TABLE changes (seq INTEGER PRIMARY KEY AUTOINCREMENT, index_id INTEGER NOT NULL, uid TEXT NOT NULL);
  CREATE INDEX changes_index ON changes (index_id, seq);
  `,
];

export function migrate(db: Db, migrations: string[]): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current >= migrations.length) return;
  db.transaction(() => {
    // Re-read inside the lock: another process may have migrated while we waited.
    const now = db.pragma('user_version', { simple: true }) as number;
    for (let v = now; v < migrations.length; v++) db.exec(migrations[v]);
    db.pragma(`user_version = ${migrations.length}`);
  }).immediate();
}
