import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { openDatabase, unmapped } from '../../shared/storage/sqlite/open-database.js';

it('unmapped() reads with search.db\'s memory map off and puts it back, also when the read throws', () => {
  const db = openDatabase(mkdtempSync(join(tmpdir(), 'quarry-unmapped-')), { file: 'search' });
  try {
    const mapped = db.pragma('mmap_size', { simple: true }) as number;
    expect(mapped).toBeGreaterThan(0);
    expect(unmapped(db, () => db.pragma('mmap_size', { simple: true }))).toBe(0);
    expect(db.pragma('mmap_size', { simple: true })).toBe(mapped);
    expect(() => unmapped(db, () => { throw new Error('read failed'); })).toThrow('read failed');
    expect(db.pragma('mmap_size', { simple: true })).toBe(mapped);
  } finally {
    db.close();
  }
});
