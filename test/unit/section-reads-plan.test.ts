// A search reads its results' sections by id: that statement must find them by rowid, never by walking
// an index's sections, whatever statistics SQLite has (a plan that walks them costs a search O(corpus)).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../shared/storage/sqlite/open-database.js';
import { sectionsByIdSql } from '../../shared/storage/sqlite/sqlite-section-store.js';

const dir = mkdtempSync(join(tmpdir(), 'quarry-plan-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('reading sections by id', () => {
  it('looks each one up by rowid, without statistics and after ANALYZE, for every count a statement is prepared for', () => {
    const db = openDatabase(dir, { file: 'search' });
    const insert = db.prepare(`INSERT INTO sections (index_id, doc_uid, version, ord, title, text, hash) VALUES (?, ?, 1, 0, '', 'text', ?)`);
    db.transaction(() => {
      for (let i = 0; i < 3000; i++) insert.run(1 + (i % 2), `d${i}`, `h${i}`);
    })();
    const plan = (n: number) => db.prepare(`EXPLAIN QUERY PLAN ${sectionsByIdSql(n)}`).all(...Array(n).fill(1), 1).map((r) => (r as { detail: string }).detail).join(' | ');
    for (const analyzed of [false, true]) {
      if (analyzed) db.exec('ANALYZE');
      for (const n of [1, 2, 9, 10, 50, 64]) {
        expect(plan(n), `${n} ids${analyzed ? ', analyzed' : ''}`).toMatch(/USING INTEGER PRIMARY KEY \(rowid=\?\)/);
        expect(plan(n)).not.toMatch(/sections_doc/);
      }
    }
    db.close();
  });
});
