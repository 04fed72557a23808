// The SQLite section store's change signal (search.changed): a hint that lets a reader answer "nothing new"
// without a query. Whatever the file says, or fails to say, no publish is missed for longer than SIGNAL_TRUST_MS.
import { mkdtempSync, rmSync, truncateSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BackendStorage } from '../../shared/storage/ports/storage.js';
import { createSqliteStorage } from '../../shared/storage/sqlite/create-sqlite-storage.js';
import { CHANGE_SIGNAL_FILE, SIGNAL_TRUST_MS } from '../../shared/storage/sqlite/sqlite-section-store.js';
import { item, MODEL } from '../contract/section-store.contract.js';

const INDEX = 3;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const uids = async (s: BackendStorage, seq: number) => (await s.sections.changesSince(INDEX, seq, 100)).map((c) => c.uid);

describe('sqlite change signal', () => {
  let dir: string;
  let writer: BackendStorage;
  let reader: BackendStorage;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'quarry-signal-'));
    writer = createSqliteStorage({ dataDir: dir, synchronous: 'normal' });
    reader = createSqliteStorage({ dataDir: dir, synchronous: 'normal' });
  });

  afterEach(async () => {
    await writer.close();
    await reader.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a publish by another store is seen at the reader\'s next call, however often it heard "nothing new"', async () => {
    let seq = 0;
    for (let round = 0; round < 20; round++) {
      for (let i = 0; i < 3; i++) expect(await uids(reader, seq)).toEqual([]);
      await writer.sections.publish(INDEX, [item(`d${round}`, 1)], MODEL);
      const seen = await reader.sections.changesSince(INDEX, seq, 100);
      expect(seen.map((c) => c.uid)).toEqual([`d${round}`]);
      seq = seen[0].seq;
    }
  });

  it('an entry committed without a signal (its process died before writing it) is seen within SIGNAL_TRUST_MS, and at once after the next publish', async () => {
    await writer.sections.publish(INDEX, [item('a', 1)], MODEL);
    const seq = await reader.sections.lastChange(INDEX);
    expect(await uids(reader, seq)).toEqual([]);
    // What a publish that died between its commit and the signal leaves: an entry the signal does not cover.
    const raw = new Database(join(dir, 'search.db'));
    raw.prepare('INSERT INTO changes (index_id, uid) VALUES (?, ?)').run(INDEX, 'unsignalled');
    raw.close();
    expect(await uids(reader, seq)).toEqual([]);
    await sleep(SIGNAL_TRUST_MS + 50);
    expect(await uids(reader, seq)).toEqual(['unsignalled']);

    const after = await reader.sections.lastChange(INDEX);
    expect(await uids(reader, after)).toEqual([]);
    const again = new Database(join(dir, 'search.db'));
    again.prepare('INSERT INTO changes (index_id, uid) VALUES (?, ?)').run(INDEX, 'replayed');
    again.close();
    // The replayed job's publish finds its version live and changes nothing, but marks the signal.
    await writer.sections.publish(INDEX, [item('a', 1)], MODEL);
    expect(await uids(reader, after)).toEqual(['replayed']);
  });

  it('a mark written late, after another publisher\'s commit and mark, still sends the reader to the log', async () => {
    const late = createSqliteStorage({ dataDir: dir, synchronous: 'normal' });
    try {
      await writer.sections.publish(INDEX, [item('a', 1)], MODEL);
      const seq = await reader.sections.lastChange(INDEX);
      expect(await uids(reader, seq)).toEqual([]);
      for (let i = 0; i < 5; i++) {
        const raw = new Database(join(dir, 'search.db'));
        raw.prepare('INSERT INTO changes (index_id, uid) VALUES (?, ?)').run(INDEX, `c${i}`);
        raw.close();
        // A publisher that committed earlier and marks only now (its process was descheduled in between).
        await late.sections.publish(INDEX, [], MODEL);
        expect((await uids(reader, seq)).at(-1)).toBe(`c${i}`);
      }
    } finally {
      await late.close();
    }
  });

  it('an empty signal file (nothing ever published) answers "nothing new" without a query, and a first publish is seen at once', async () => {
    const file = join(dir, CHANGE_SIGNAL_FILE);
    truncateSync(file, 0);
    expect(await uids(reader, 0)).toEqual([]);
    // Committed without a mark: the empty file is trusted until SIGNAL_TRUST_MS has passed.
    const raw = new Database(join(dir, 'search.db'));
    raw.prepare('INSERT INTO changes (index_id, uid) VALUES (?, ?)').run(INDEX, 'unmarked');
    raw.close();
    expect(await uids(reader, 0)).toEqual([]);
    await writer.sections.publish(INDEX, [item('first', 1)], MODEL);
    expect(await uids(reader, 0)).toEqual(['unmarked', 'first']);
  });

  it('a signal file that is missing, short or overwritten only costs queries, never an entry', async () => {
    const file = join(dir, CHANGE_SIGNAL_FILE);
    let seq = 0;
    const damage = [() => truncateSync(file, 3), () => unlinkSync(file), () => writeFileSync(file, Buffer.alloc(8, 0xff))];
    for (const [i, spoil] of damage.entries()) {
      expect(await uids(reader, seq)).toEqual([]);
      spoil();
      // A writer whose file is gone writes to the unlinked one: the reader's file says nothing new, or nothing.
      const raw = new Database(join(dir, 'search.db'));
      raw.prepare('INSERT INTO changes (index_id, uid) VALUES (?, ?)').run(INDEX, `x${i}`);
      raw.close();
      const deadline = Date.now() + SIGNAL_TRUST_MS + 500;
      let seen: string[] = [];
      while (seen.length === 0 && Date.now() < deadline) {
        seen = await uids(reader, seq);
        if (seen.length === 0) await sleep(20);
      }
      expect(seen).toEqual([`x${i}`]);
      seq = await reader.sections.lastChange(INDEX);
    }
  });
});
