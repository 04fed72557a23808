import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

// Each process opens the three files the way the API and the workers do at start.
const OPEN_ALL = `
import { openDatabase } from './shared/storage/sqlite/open-database.ts';
const [dir, startAt] = [process.argv[1], Number(process.argv[2])];
// Node's start-up time varies by more than the race window: all processes begin at the same instant.
while (Date.now() < startAt);
for (const file of ['documents', 'search', 'events']) openDatabase(dir, { file }).close();
`;

function openAll(dir: string, startAt: number): Promise<{ code: number | null; err: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', OPEN_ALL, dir, String(startAt)], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    child.on('exit', (code) => done({ code, err }));
  });
}

describe('opening a new data folder from several processes at once', () => {
  // CI once saw `npm start` fail with SQLITE_BUSY from `journal_mode = WAL` when the API and the workers
  // created the folder at the same moment.
  it('every process opens every file; none fails with SQLITE_BUSY', { timeout: 120_000 }, async () => {
    const parent = mkdtempSync(join(tmpdir(), 'quarry-open-race-'));
    try {
      for (let round = 0; round < 4; round++) {
        const dir = join(parent, `data-${round}`);
        const startAt = Date.now() + 2_500;
        const results = await Promise.all(Array.from({ length: 4 }, () => openAll(dir, startAt)));
        for (const r of results) expect(r, r.err).toMatchObject({ code: 0 });
      }
    } finally {
      rmSync(parent, { recursive: true, force: true });
    }
  });
});
