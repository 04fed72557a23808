import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { DISK_CHECK_INTERVAL_MS } from '../../shared/storage/disk-guard.js';
import { fillDisk, freeBytes, mountSmallDisk, type SmallDisk } from '../../scripts/chaos/disk.js';
import { DB_FILES } from '../../shared/storage/sqlite/open-database.js';
import { startTestService, waitFor, type TestService } from '../helpers/test-service.js';

/**
 * The data folder on a small tmpfs of its own (mount -t tmpfs -o size=…), filled for real with
 * fallocate and writes to ENOSPC. Mounting needs root or CAP_SYS_ADMIN: without it these tests are
 * skipped with the reason printed (the chaos suite reports the same).
 */
const probe = mkdtempSync(join(tmpdir(), 'quarry-disk-probe-'));
const probeMount = mountSmallDisk(probe, 1);
const cannotMount = 'reason' in probeMount ? probeMount.reason : null;
if ('unmount' in probeMount) probeMount.unmount();
rmSync(probe, { recursive: true, force: true });
if (cannotMount) console.warn(`disk-full tests skipped: ${cannotMount}`);

const disks: { disk: SmallDisk; dir: string }[] = [];
afterAll(() => {
  for (const { disk, dir } of disks) {
    disk.unmount();
    rmSync(dir, { recursive: true, force: true });
  }
});

async function serviceOnSmallDisk(sizeMb: number, minFreeMb: number): Promise<{ svc: TestService; dataDir: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'quarry-disk-'));
  const disk = mountSmallDisk(dir, sizeMb);
  if ('reason' in disk) throw new Error(disk.reason);
  disks.push({ disk, dir });
  const dataDir = join(dir, 'data');
  const svc = await startTestService({ env: { QUARRY_DATA_DIR: dataDir, QUARRY_MIN_FREE_DISK_MB: String(minFreeMb) } });
  return { svc, dataDir };
}

/** Takes all free space but `leaveBytes` with one preallocated file; returns what frees it. */
function leaveFree(dir: string, leaveBytes: number): () => void {
  const file = join(dir, 'filler-bulk');
  const r = spawnSync('fallocate', ['-l', String(freeBytes(dir) - leaveBytes), file], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`fallocate failed: ${r.stderr}`);
  return () => rmSync(file, { force: true });
}

function integrity(dataDir: string): string[] {
  return Object.values(DB_FILES).map((file) => {
    const db = new Database(join(dataDir, file), { readonly: true });
    try {
      return `${file}: ${db.pragma('integrity_check', { simple: true })}`;
    } finally {
      db.close();
    }
  });
}

const page = (i: number) => ({ title: `Page ${i}`, content: `<h2>Part ${i}</h2><p>About disktok${i} and shared words.</p>` });

async function searchable(svc: TestService, uids: number[]): Promise<boolean> {
  return waitFor(async () => {
    for (const i of uids) if (!(await svc.keywordUids('docs', `disktok${i}`, ['title', 'content'])).includes(`d${i}`)) return false;
    return true;
  }, 60_000, 200);
}

describe.skipIf(cannotMount !== null)('the data folder\'s disk fills up', () => {
  it('refuses writes with 507 below QUARRY_MIN_FREE_DISK_MB, keeps reads working, corrupts nothing, resumes when space is freed', async () => {
    const { svc, dataDir } = await serviceOnSmallDisk(64, 16);
    try {
      expect((await svc.call('POST', '/v1/admin/indexes', { uid: 'docs', language_code: 'en' })).status).toBe(201);
      for (let i = 0; i < 5; i++) expect((await svc.call('PUT', `/v2/indexes/docs/documents/d${i}`, page(i))).status).toBe(204);
      expect(await searchable(svc, [0, 1, 2, 3, 4])).toBe(true);
      const config = (await svc.call('POST', '/v1/admin/configurations', { variant: 'ui', name: 'Help', indexes: ['docs'] })).body;

      // Under the minimum but not yet full: every kind of document write is refused, with the reason.
      const freeBulk = leaveFree(dataDir, 8 * 2 ** 20);
      // The guard reads the free space at most every DISK_CHECK_INTERVAL_MS: let its figure go stale first.
      await new Promise((r) => setTimeout(r, DISK_CHECK_INTERVAL_MS + 50));
      const refused = [
        await svc.call('PUT', '/v2/indexes/docs/documents/d10', page(10)),
        await svc.call('POST', '/v2/indexes/docs/documents', { documents: [{ uid: 'd11', ...page(11) }] }),
        await svc.call('DELETE', '/v2/indexes/docs/documents/d0'),
      ];
      for (const r of refused) {
        expect(r.status, JSON.stringify(r.body)).toBe(507);
        expect(r.body).toMatchObject({ code: 507, error: 'insufficient_storage' });
        expect(r.body.message).toMatch(/QUARRY_MIN_FREE_DISK_MB/);
      }

      // Then full to the last block: still refused by the guard, and reads answer throughout.
      const freeRest = fillDisk(dataDir).release;
      expect(freeBytes(dataDir)).toBeLessThan(64 * 1024);
      expect((await svc.call('PUT', '/v2/indexes/docs/documents/d12', page(12))).status).toBe(507);
      expect(await svc.keywordUids('docs', 'disktok3', ['title', 'content'])).toEqual(['d3']);
      const widget = await svc.call('GET', `/v1/ui/search?uid=${config.uid}&session-id=s1&query=disktok2`);
      expect(widget.status, JSON.stringify(widget.body)).toBe(200);
      expect(widget.body.results.length).toBeGreaterThan(0);
      expect((await svc.call('GET', '/v2/indexes/docs/documents/d1')).status).toBe(200);
      expect((await svc.call('GET', '/v2/indexes/docs/status')).body.documents).toBe(5);
      // Still ready (reads are served), and saying that writes are refused.
      const ready = await svc.call('GET', '/readyz');
      expect(ready.status).toBe(200);
      expect(ready.body.checks.disk).toMatch(/^low: .*507/);

      // Space freed: writes resume, nothing refused was stored, nothing stored was damaged.
      freeRest();
      freeBulk();
      const resumed = await waitFor(async () => (await svc.call('PUT', '/v2/indexes/docs/documents/d10', page(10))).status === 204, 10_000, 100);
      expect(resumed).toBe(true);
      expect((await svc.call('GET', '/readyz')).body.checks.disk).toBe('ok');
      expect((await svc.call('GET', '/v2/indexes/docs/documents/d11')).status).toBe(404);
      expect(await searchable(svc, [0, 1, 2, 3, 4, 10])).toBe(true);
      expect(integrity(dataDir)).toEqual(Object.values(DB_FILES).map((f) => `${f}: ok`));
    } finally {
      await svc.close();
    }
  }, 180_000);

  it('with the guard off (QUARRY_MIN_FREE_DISK_MB=0) a really full disk gets 507 saying so, not a hang, and corrupts nothing', async () => {
    const { svc, dataDir } = await serviceOnSmallDisk(64, 0);
    try {
      expect((await svc.call('POST', '/v1/admin/indexes', { uid: 'docs', language_code: 'en' })).status).toBe(201);
      for (let i = 0; i < 3; i++) expect((await svc.call('PUT', `/v2/indexes/docs/documents/d${i}`, page(i))).status).toBe(204);
      expect(await searchable(svc, [0, 1, 2])).toBe(true);

      const { release } = fillDisk(dataDir);
      // Big enough to need new pages whatever SQLite had spare.
      const big = { title: 'Big', content: `<p>${'filler words '.repeat(40_000)} disktok20</p>` };
      const r = await svc.call('PUT', '/v2/indexes/docs/documents/d20', big);
      expect(r.status, JSON.stringify(r.body)).toBe(507);
      expect(r.body.message).toMatch(/disk is full/);
      expect(await svc.keywordUids('docs', 'disktok1', ['title', 'content'])).toEqual(['d1']);

      release();
      expect((await svc.call('PUT', '/v2/indexes/docs/documents/d20', big)).status).toBe(204);
      expect(await searchable(svc, [0, 1, 2, 20])).toBe(true);
      expect(integrity(dataDir)).toEqual(Object.values(DB_FILES).map((f) => `${f}: ok`));
    } finally {
      await svc.close();
    }
  }, 180_000);
});
