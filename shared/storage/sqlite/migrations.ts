import type { Db } from './open-database.js';

/** Append-only: a migration, once shipped, is never edited; add a new one instead. */
/** SQL, or a function for what SQL alone cannot say. */
export type Migration = string | ((db: Db) => void);

export const DOCUMENT_MIGRATIONS: Migration[] = [
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
  // Search-interface configurations (API Tool / API UI) and their instant answers.
  `
  CREATE TABLE configurations (
    uid TEXT PRIMARY KEY,
    variant TEXT NOT NULL CHECK (variant IN ('tool', 'ui')),
    body TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  );
  CREATE TABLE instant_answers (
    id TEXT PRIMARY KEY,
    configuration_uid TEXT NOT NULL REFERENCES configurations(uid) ON DELETE CASCADE,
    body TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  );
  CREATE INDEX instant_answers_configuration ON instant_answers (configuration_uid, created_at);
  `,
  // Chat conversations: kept with the documents, so they survive restarts and power cuts alike.
  `
  CREATE TABLE conversations (
    id TEXT NOT NULL,
    configuration_uid TEXT NOT NULL,
    session TEXT NOT NULL,
    latest_url TEXT,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (configuration_uid, id)
  ) WITHOUT ROWID;
  CREATE INDEX conversations_updated ON conversations (configuration_uid, updated_at);
  CREATE TABLE conversation_turns (
    configuration_uid TEXT NOT NULL,
    conversation_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    question TEXT NOT NULL,
    reply TEXT NOT NULL,
    refs TEXT NOT NULL,
    at INTEGER NOT NULL,
    PRIMARY KEY (configuration_uid, conversation_id, seq)
  ) WITHOUT ROWID;
  `,
  // Settings every process must agree on (the server secret).
  `CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;`,
  // Web-app sessions (by the keyed hash of their token) and when each key was last used.
  `
  CREATE TABLE web_sessions (
    hash TEXT PRIMARY KEY,
    csrf_token TEXT NOT NULL,
    key_id TEXT NOT NULL,
    key_name TEXT NOT NULL,
    master_hash TEXT,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    last_seen_at INTEGER NOT NULL
  ) WITHOUT ROWID;
  CREATE INDEX web_sessions_key ON web_sessions (key_id);
  CREATE INDEX web_sessions_expiry ON web_sessions (expires_at);
  ALTER TABLE api_keys ADD COLUMN last_used_at INTEGER;
  `,
  // A page's extracted HTML fragments (search results' metadata), kept with its document version.
  `ALTER TABLE documents ADD COLUMN metadata TEXT;`,
  // Website sources, the crawler's record of each page (validators, content hash) and the frontier a
  // retried crawl job resumes from.
  `
  CREATE TABLE sources (
    uid TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    index_uid TEXT NOT NULL,
    settings TEXT NOT NULL,
    crawl TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  ) WITHOUT ROWID;
  CREATE TABLE source_pages (
    source_uid TEXT NOT NULL,
    url TEXT NOT NULL,
    etag TEXT,
    last_modified TEXT,
    content_hash TEXT,
    status TEXT NOT NULL,
    reason TEXT,
    last_seen_crawl INTEGER NOT NULL,
    PRIMARY KEY (source_uid, url)
  ) WITHOUT ROWID;
  CREATE TABLE source_frontier (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    source_uid TEXT NOT NULL,
    url TEXT NOT NULL,
    depth INTEGER NOT NULL,
    done INTEGER NOT NULL,
    UNIQUE (source_uid, url)
  );
  `,
  // The links a page had when last fetched: a 304 answer carries none, and the crawl must still follow them.
  `ALTER TABLE source_pages ADD COLUMN links TEXT NOT NULL DEFAULT '[]';`,
  // What each url dealt with added to the crawl's counters (a resumed crawl sums them, so none counts twice),
  // and the problem pages indexed apart, so a source's view reads the latest few without scanning every page.
  `
  ALTER TABLE source_frontier ADD COLUMN outcome TEXT;
  CREATE INDEX source_pages_problems ON source_pages (source_uid, last_seen_crawl DESC, url) WHERE status <> 'indexed';
  `,
  // Pipeline jobs claim the pending documents there are when they run (claimPending): a claimed
  // document stays with its job; an unclaimed one goes to whichever job of its index runs first.
  `
  ALTER TABLE documents ADD COLUMN claimed INTEGER NOT NULL DEFAULT 0;
  CREATE INDEX documents_unclaimed ON documents (index_id, version) WHERE status = 'pending' AND claimed = 0;
  CREATE INDEX documents_pending_job ON documents (index_id, job) WHERE status = 'pending';
  `,
];

/**
 * The search file: written by the workers only, so publishing never holds the lock the API's
 * document commits need. `live` holds the version each document's sections come from; versions
 * only move forward, and a delete leaves its version behind so a late, older write cannot return.
 */
export const SEARCH_MIGRATIONS: Migration[] = [
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
  // No query ever read the FTS5 keyword tables (search runs in memory): drop them and their upkeep.
  (db) => {
    const tables = db.prepare<[], string>(`SELECT name FROM sqlite_master WHERE type = 'table' AND name GLOB 'fts_[0-9]*' AND sql LIKE '%fts5%'`).pluck().all();
    for (const t of tables) db.exec(`DROP TABLE "${t}"`);
  },
];

/**
 * The events file: searches, clicks and support forwards, and the statistics autocomplete and
 * click boosts read. Day-bucketed columns let insights aggregate a date range from indexes alone.
 */
export const EVENT_MIGRATIONS: Migration[] = [
  `
  CREATE TABLE searches (
    id TEXT PRIMARY KEY,
    at INTEGER NOT NULL,
    configuration_uid TEXT NOT NULL,
    variant TEXT NOT NULL,
    session TEXT NOT NULL,
    device TEXT NOT NULL,
    query TEXT NOT NULL,
    normalized TEXT NOT NULL,
    result_count INTEGER NOT NULL
  ) WITHOUT ROWID;
  CREATE INDEX searches_time ON searches (configuration_uid, at);

  CREATE TABLE clicks (
    search_id TEXT NOT NULL,
    session TEXT NOT NULL,
    position INTEGER NOT NULL,
    at INTEGER NOT NULL,
    configuration_uid TEXT NOT NULL,
    target TEXT NOT NULL,
    PRIMARY KEY (search_id, session, position)
  ) WITHOUT ROWID;
  CREATE INDEX clicks_time ON clicks (configuration_uid, at);

  CREATE TABLE support_forwards (
    id INTEGER PRIMARY KEY,
    at INTEGER NOT NULL,
    configuration_uid TEXT NOT NULL,
    url TEXT NOT NULL,
    session TEXT,
    device TEXT NOT NULL
  );
  CREATE INDEX support_forwards_time ON support_forwards (configuration_uid, at);

  -- Autocomplete: how often each normalized query was asked, and by how many distinct sessions.
  CREATE TABLE query_stats (
    configuration_uid TEXT NOT NULL,
    query TEXT NOT NULL,
    searches INTEGER NOT NULL,
    sessions INTEGER NOT NULL,
    PRIMARY KEY (configuration_uid, query)
  ) WITHOUT ROWID;
  CREATE TABLE query_sessions (
    configuration_uid TEXT NOT NULL,
    query TEXT NOT NULL,
    session TEXT NOT NULL,
    PRIMARY KEY (configuration_uid, query, session)
  ) WITHOUT ROWID;
  CREATE TABLE query_totals (configuration_uid TEXT PRIMARY KEY, searches INTEGER NOT NULL) WITHOUT ROWID;

  -- Click learning: distinct sessions that chose a target for a query.
  CREATE TABLE click_stats (
    configuration_uid TEXT NOT NULL,
    query TEXT NOT NULL,
    target TEXT NOT NULL,
    sessions INTEGER NOT NULL,
    PRIMARY KEY (configuration_uid, query, target)
  ) WITHOUT ROWID;
  CREATE TABLE generations (
    id TEXT PRIMARY KEY,
    at INTEGER NOT NULL,
    configuration_uid TEXT NOT NULL,
    kind TEXT NOT NULL,
    session TEXT,
    device TEXT NOT NULL,
    query TEXT NOT NULL,
    status TEXT NOT NULL,
    latency_ms INTEGER NOT NULL,
    refs TEXT NOT NULL
  ) WITHOUT ROWID;
  CREATE INDEX generations_time ON generations (configuration_uid, at);

  CREATE TABLE click_sessions (
    configuration_uid TEXT NOT NULL,
    query TEXT NOT NULL,
    target TEXT NOT NULL,
    session TEXT NOT NULL,
    PRIMARY KEY (configuration_uid, query, target, session)
  ) WITHOUT ROWID;
  `,
  // Learning counts distinct client addresses (keyed hashes) beside sessions, which clients choose;
  // operators block suggestions; last_at lets retention drop statistics nobody renewed. Rows from
  // before count no address (they cannot be told from invented sessions) and are as old as this migration.
  (db) => {
    db.exec(`
      ALTER TABLE query_stats ADD COLUMN clients INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE query_stats ADD COLUMN last_at INTEGER NOT NULL DEFAULT 0;
      CREATE TABLE query_clients (
        configuration_uid TEXT NOT NULL,
        query TEXT NOT NULL,
        client TEXT NOT NULL,
        PRIMARY KEY (configuration_uid, query, client)
      ) WITHOUT ROWID;
      ALTER TABLE click_stats ADD COLUMN clients INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE click_stats ADD COLUMN last_at INTEGER NOT NULL DEFAULT 0;
      CREATE TABLE click_clients (
        configuration_uid TEXT NOT NULL,
        query TEXT NOT NULL,
        target TEXT NOT NULL,
        client TEXT NOT NULL,
        PRIMARY KEY (configuration_uid, query, target, client)
      ) WITHOUT ROWID;
      CREATE INDEX query_stats_last ON query_stats (last_at);
      CREATE INDEX click_stats_last ON click_stats (last_at);
      CREATE TABLE blocked_suggestions (
        configuration_uid TEXT NOT NULL,
        query TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        PRIMARY KEY (configuration_uid, query)
      ) WITHOUT ROWID;
    `);
    const now = Date.now();
    db.prepare(`UPDATE query_stats SET last_at = ?`).run(now);
    db.prepare(`UPDATE click_stats SET last_at = ?`).run(now);
  },
];

export function migrate(db: Db, migrations: Migration[]): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current >= migrations.length) return;
  db.transaction(() => {
    // Re-read inside the lock: another process may have migrated while we waited.
    const now = db.pragma('user_version', { simple: true }) as number;
    for (let v = now; v < migrations.length; v++) {
      const m = migrations[v];
      if (typeof m === 'string') db.exec(m);
      else m(db);
    }
    db.pragma(`user_version = ${migrations.length}`);
  }).immediate();
}
