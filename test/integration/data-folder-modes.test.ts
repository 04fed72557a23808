import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../shared/config/config.js';
import { createStorage, type Storage } from '../../shared/storage/create-storage.js';

/**
 * Issue 22: the data folder (documents, visitors' queries, conversations, key hashes, possibly the secret)
 * was 0755 with 0644 SQLite files. It is created private to the service's user, every file in it too (the
 * -wal and -shm files SQLite creates itself included), and an older folder is tightened at start, logged.
 * The tests run under the umask most systems give (022), so the modes come from the store, not the umask.
 */
const root = mkdtempSync(join(tmpdir(), 'quarry-modes-'));
let umask: number;
const opened: Storage[] = [];
beforeAll(() => {
  umask = process.umask(0o022);
});
afterEach(async () => {
  while (opened.length) await opened.pop()!.close();
});
afterAll(() => {
  process.umask(umask);
  rmSync(root, { recursive: true, force: true });
});

const mode = (path: string) => `0${(statSync(path).mode & 0o777).toString(8)}`;

/** Every path under `dir` (itself included) with its mode. */
function modes(dir: string): Record<string, string> {
  const out: Record<string, string> = { '.': mode(dir) };
  const walk = (rel: string) => {
    for (const e of readdirSync(join(dir, rel), { withFileTypes: true })) {
      const path = rel ? `${rel}/${e.name}` : e.name;
      out[path] = mode(join(dir, path));
      if (e.isDirectory()) walk(path);
    }
  };
  walk('');
  return out;
}

async function open(dataDir: string, log?: { warn(obj: object, msg: string): void }) {
  const storage = await createStorage(loadConfig({ QUARRY_DATA_DIR: dataDir }).storage, { commitThread: true, log });
  opened.push(storage);
  await storage.indexes.upsert('docs', 'en', {});
  await storage.ping();
  return storage;
}

describe('the data folder is private to the service user', () => {
  it('a fresh data folder is 0700 and every file in it 0600, the SQLite -wal and -shm files included', async () => {
    const dataDir = join(root, 'fresh', 'data');
    await open(dataDir);
    const found = modes(dataDir);
    for (const db of ['quarry.db', 'search.db', 'events.db']) {
      for (const suffix of ['', '-wal', '-shm']) expect(Object.keys(found)).toContain(`${db}${suffix}`);
    }
    expect(found['.']).toBe('0700');
    for (const [path, m] of Object.entries(found)) if (path !== '.') expect(`${path} ${m}`).toBe(`${path} 0600`);
  });

  it('an existing folder readable by others is tightened at start, and each path that changed is logged with its old and new mode', async () => {
    const dataDir = join(root, 'older');
    const first = await open(dataDir);
    opened.splice(opened.indexOf(first), 1);
    await first.close();
    // As an older version left it, with what `npm start` keeps beside the databases.
    mkdirSync(join(dataDir, 'redis', 'appendonlydir'), { recursive: true });
    writeFileSync(join(dataDir, 'redis', 'appendonlydir', 'appendonly.aof.1.incr.aof'), '');
    writeFileSync(join(dataDir, 'master-key'), 'qm_x\n');
    for (const path of ['', 'redis', 'redis/appendonlydir']) chmodSync(join(dataDir, path), 0o755);
    for (const path of ['quarry.db', 'search.db', 'events.db', 'master-key', 'redis/appendonlydir/appendonly.aof.1.incr.aof']) chmodSync(join(dataDir, path), 0o644);
    chmodSync(join(dataDir, 'events.db'), 0o640);

    const lines: { obj: { changed?: { path: string; from: string; to: string }[] }; msg: string }[] = [];
    await open(dataDir, { warn: (obj, msg) => lines.push({ obj, msg }) });

    const found = modes(dataDir);
    for (const [path, m] of Object.entries(found)) {
      const dir = path === '.' || path === 'redis' || path === 'redis/appendonlydir';
      expect(`${path} ${m}`).toBe(`${path} ${dir ? '0700' : '0600'}`);
    }
    expect(lines).toHaveLength(1);
    expect(lines[0].msg).toMatch(/readable by other users; made private/);
    expect(lines[0].msg).toContain(`${join(dataDir, 'quarry.db')} 0644 -> 0600`);
    expect(lines[0].obj.changed).toEqual(expect.arrayContaining([
      { path: dataDir, from: '0755', to: '0700' },
      { path: join(dataDir, 'redis'), from: '0755', to: '0700' },
      { path: join(dataDir, 'redis', 'appendonlydir'), from: '0755', to: '0700' },
      { path: join(dataDir, 'redis', 'appendonlydir', 'appendonly.aof.1.incr.aof'), from: '0644', to: '0600' },
      { path: join(dataDir, 'master-key'), from: '0644', to: '0600' },
      { path: join(dataDir, 'quarry.db'), from: '0644', to: '0600' },
      { path: join(dataDir, 'search.db'), from: '0644', to: '0600' },
      { path: join(dataDir, 'events.db'), from: '0640', to: '0600' },
    ]));
    expect(lines[0].obj.changed).toHaveLength(8);

    // Already private: the next start has nothing to change or say.
    const again: unknown[] = [];
    await open(dataDir, { warn: (obj) => again.push(obj) });
    expect(again).toEqual([]);
  });
});
