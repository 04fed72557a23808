import { mkdtempSync, readFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { openDatabase } from '../../shared/storage/sqlite/open-database.js';

/** Resident bytes of `file`'s memory mappings in this process (its smaps lines). */
function residentOf(file: string): number {
  let mine = false;
  let bytes = 0;
  for (const line of readFileSync('/proc/self/smaps', 'utf8').split('\n')) {
    const head = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \d+\s*(.*)$/.exec(line);
    if (head) mine = head[1] === file;
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss && mine) bytes += Number(rss[1]) * 1024;
  }
  return bytes;
}

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
    expect(residentOf(join(dir, 'search.db'))).toBe(0);
  } finally {
    db.close();
  }
});
