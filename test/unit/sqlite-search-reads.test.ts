import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { mappedFilesOf } from '../../scripts/bench/mapped-files.js';
import { openDatabase } from '../../shared/storage/sqlite/open-database.js';

it('search.db is read through SQLite\'s bounded cache: rows read at random leave none of the file resident in the process', () => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'quarry-search-reads-')));
  const db = openDatabase(dir, { file: 'search' });
  try {
    const insert = db.prepare('INSERT INTO sections (index_id, doc_uid, version, ord, title, text, hash) VALUES (1, ?, 1, 0, \'\', ?, ?)');
    db.transaction(() => {
      for (let i = 0; i < 3000; i++) insert.run(`doc-${i}`, `text ${i} `.repeat(200), `h${i}`);
    })();
    // Into the file itself: read from the WAL, pages would not be mapped whatever the setting.
    db.pragma('wal_checkpoint(TRUNCATE)');
    const read = db.prepare('SELECT text FROM sections WHERE id = ?');
    let chars = 0;
    for (let i = 0; i < 300; i++) chars += (read.get(1 + ((i * 7919) % 3000)) as { text: string }).text.length;
    expect(chars).toBeGreaterThan(300 * 1000);
    // Through a memory map each row read here would have brought its page and those around it (a 64 KB fault-around).
    expect(mappedFilesOf('self')?.find((f) => f.path === join(dir, 'search.db'))?.rss ?? 0).toBe(0);
  } finally {
    db.close();
  }
});
