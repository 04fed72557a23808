import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createSqliteStorage } from '../../shared/storage/sqlite/create-sqlite-storage.js';

const dir = mkdtempSync(join(tmpdir(), 'quarry-conv-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('conversation store', () => {
  it('keeps conversations across a restart, newest topic first, turns in order', async () => {
    const first = createSqliteStorage({ dataDir: dir });
    const ref = (url: string) => ({ index: 1, title: 't', url, content: 'c' });
    await first.conversations.append('cfg', 'c1', 'h', { question: 'q1', reply: 'r1 [1]', references: [ref('https://a/1')], at: 1000 });
    await first.conversations.append('cfg', 'c1', 'h', { question: 'q2', reply: 'r2 [1]', references: [ref('https://a/2')], at: 2000 });
    await first.conversations.append('cfg', 'c2', 'h', { question: 'q', reply: 'none', references: [], at: 1500 });
    await first.close();

    const again = createSqliteStorage({ dataDir: dir });
    expect((await again.conversations.turns('cfg', 'c1', 10)).map((t) => t.question)).toEqual(['q1', 'q2']);
    expect((await again.conversations.turns('cfg', 'c1', 1)).map((t) => t.question)).toEqual(['q2']);
    expect(await again.conversations.list('cfg', 0, 3000)).toEqual([
      { id: 'c1', latestUrl: 'https://a/2', updatedAt: 2000, turns: 2 },
      // A reply without references keeps the conversation's last known topic (none here).
      { id: 'c2', latestUrl: null, updatedAt: 1500, turns: 1 },
    ]);
    expect(await again.conversations.list('cfg', 1600, 1700)).toEqual([]);
    expect(await again.conversations.exists('other', 'c1')).toBe(false);
    await again.close();
  });
});
