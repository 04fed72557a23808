import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../shared/config/config.js';
import { createStorage } from '../../shared/storage/create-storage.js';
import { MASTER_KEY, callJson, startTestService, waitFor, type TestService } from '../helpers/test-service.js';

let svc: TestService;
const folders: string[] = [];

/** An empty data folder of the test's own: whatever the scripts write there did not go through the server. */
function freshDataDir() {
  const dir = mkdtempSync(join(tmpdir(), 'quarry-cli-'));
  folders.push(dir);
  return dir;
}

/** The script as an operator runs it, with only the environment given here (none of the test run's QUARRY_*). */
async function run(script: 'keys' | 'configurations', args: string[], env: Record<string, string>) {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(QUARRY_|DATABASE_URL$|PORT$)/.test(k)));
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, ['--import', 'tsx', `scripts/${script}.ts`, ...args], {
      env: { ...base, QUARRY_LOG_LEVEL: 'silent', ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

async function closedPort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const { port } = server.address() as AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}

const createdId = (stdout: string) => /Created key (key_[0-9a-f]+)/.exec(stdout)?.[1];
const createdSecret = (stdout: string) => /\b(qk_[A-Za-z0-9_-]+)/.exec(stdout)?.[1];
const listLine = (stdout: string, id: string) => stdout.split('\n').find((l) => l.startsWith(`${id} `));

beforeAll(async () => {
  svc = await startTestService({ workers: false });
});
afterAll(async () => {
  await svc?.close();
  for (const dir of folders) rmSync(dir, { recursive: true, force: true });
});

describe('keys CLI against a running server', () => {
  it('creates, lists with last use, and revokes through the admin API', async () => {
    const env = { QUARRY_URL: svc.url, QUARRY_MASTER_KEY: MASTER_KEY, QUARRY_DATA_DIR: freshDataDir() };
    const created = await run('keys', ['create', '--name', 'cli admin', '--permissions', 'read,admin'], env);
    expect(created.code).toBe(0);
    expect(created.stderr).toContain(`through the admin API at ${svc.url}`);
    const id = createdId(created.stdout)!;
    const secret = createdSecret(created.stdout)!;
    expect(id).toBeDefined();
    expect(secret).toBeDefined();
    // The server holds it: the script wrote nothing to its own (empty) data folder.
    expect((await svc.call('GET', '/v1/admin/keys')).body.keys.map((k: { id: string }) => k.id)).toContain(id);

    expect(listLine((await run('keys', ['list'], env)).stdout, id)).toContain('never used');
    expect((await callJson(svc.url, 'GET', '/v1/admin/keys', undefined, { 'x-api-key': secret })).status).toBe(200);
    const lastUsed = await waitFor(async () => {
      const keys = (await svc.call('GET', '/v1/admin/keys')).body.keys as { id: string; last_used_at: string | null }[];
      return keys.find((k) => k.id === id)?.last_used_at;
    });
    expect(lastUsed).toBeTruthy();
    expect(listLine((await run('keys', ['list'], env)).stdout, id)).toContain(`last used ${lastUsed}`);

    const signIn = await callJson(svc.url, 'POST', '/v1/admin/session', { key: secret }, { 'x-api-key': '' });
    expect(signIn.status).toBe(200);
    const cookie = /quarry_session=[^;]*/.exec(signIn.headers.get('set-cookie') ?? '')![0];
    expect((await callJson(svc.url, 'GET', '/v1/admin/keys', undefined, { 'x-api-key': '', cookie })).status).toBe(200);

    const revoked = await run('keys', ['revoke', id], env);
    expect(revoked).toMatchObject({ code: 0, stdout: `Revoked ${id}\n` });
    expect((await callJson(svc.url, 'GET', '/v1/admin/keys', undefined, { 'x-api-key': secret })).status).toBe(401);
    expect((await callJson(svc.url, 'GET', '/v1/admin/keys', undefined, { 'x-api-key': '', cookie })).status).toBe(401);
    expect(listLine((await run('keys', ['list'], env)).stdout, id)).toContain('(revoked)');

    const again = await run('keys', ['revoke', id], env);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`API key '${id}' does not exist or is already revoked`);
  });

  it("takes --url and --key, or the data folder's master-key file", async () => {
    const dir = freshDataDir();
    const byFlags = await run('keys', ['create', '--name', 'flags', '--url', svc.url, '--key', MASTER_KEY], { QUARRY_DATA_DIR: dir });
    expect(byFlags.code).toBe(0);
    expect(byFlags.stderr).toContain(`through the admin API at ${svc.url}`);

    writeFileSync(join(dir, 'master-key'), `${MASTER_KEY}\n`);
    const byFile = await run('keys', ['list'], { QUARRY_DATA_DIR: dir, QUARRY_URL: svc.url });
    expect(byFile.code).toBe(0);
    expect(listLine(byFile.stdout, createdId(byFlags.stdout)!)).toContain('flags');
  });

  it("prints the server's message and exits 1 on errors", async () => {
    const env = { QUARRY_URL: svc.url, QUARRY_DATA_DIR: freshDataDir() };
    const wrongKey = await run('keys', ['list', '--key', 'not-the-master-key-0123'], env);
    expect(wrongKey.code).toBe(1);
    const expected = (await callJson(svc.url, 'GET', '/v1/admin/keys', undefined, { 'x-api-key': 'not-the-master-key-0123' })).body.message;
    expect(wrongKey.stderr.trim().split('\n').at(-1)).toBe(expected);

    const bad = await run('keys', ['create', '--name', 'x', '--permissions', 'read,root', '--key', MASTER_KEY], env);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('permissions.1');
  });

  it('refuses an admin key with --indexes, through the server and straight on a data folder (issue 22)', async () => {
    const through = await run('keys', ['create', '--name', 'x', '--permissions', 'admin', '--indexes', 'docs'], { QUARRY_URL: svc.url, QUARRY_MASTER_KEY: MASTER_KEY, QUARRY_DATA_DIR: freshDataDir() });
    expect(through.code).toBe(1);
    expect(through.stderr).toContain('indexes: must be absent for a key with admin');
    const straight = await run('keys', ['create', '--name', 'x', '--permissions', 'read,admin', '--indexes', 'docs'], { QUARRY_URL: `http://127.0.0.1:${await closedPort()}`, QUARRY_DATA_DIR: freshDataDir() });
    expect(straight.code).toBe(1);
    expect(straight.stderr).toContain('indexes: must be absent for a key with admin');
  });

  it('manages configurations through the same admin API', async () => {
    const env = { QUARRY_URL: svc.url, QUARRY_MASTER_KEY: MASTER_KEY, QUARRY_DATA_DIR: freshDataDir() };
    const missing = await run('configurations', ['create', '--variant', 'ui', '--name', 'x', '--indexes', 'missing'], env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("'missing' does not exist");
    const listed = await run('configurations', ['list'], env);
    expect(listed.stderr).toContain(`through the admin API at ${svc.url}`);
    expect(JSON.parse(listed.stdout)).toEqual({ configurations: (await svc.call('GET', '/v1/admin/configurations')).body.configurations });
  });
});

describe('keys CLI with no server running', () => {
  it('works straight on a fresh data folder and says so', async () => {
    const dir = freshDataDir();
    const env = { QUARRY_URL: `http://127.0.0.1:${await closedPort()}`, QUARRY_DATA_DIR: dir };
    const created = await run('keys', ['create', '--name', 'bootstrap', '--permissions', 'write'], env);
    expect(created.code).toBe(0);
    expect(created.stderr).toContain(`working straight on the data folder ${dir}`);
    const id = createdId(created.stdout)!;

    const storage = await createStorage(loadConfig({ QUARRY_DATA_DIR: dir }).storage);
    try {
      expect((await storage.keys.list()).map((k) => [k.id, k.name, k.permissions])).toEqual([[id, 'bootstrap', ['write']]]);
    } finally {
      await storage.close();
    }
    expect(listLine((await run('keys', ['list'], env)).stdout, id)).toContain('never used');
    expect(await run('keys', ['revoke', id], env)).toMatchObject({ code: 0, stdout: `Revoked ${id}\n` });
    expect(listLine((await run('keys', ['list'], env)).stdout, id)).toContain('(revoked)');

    const configurations = await run('configurations', ['list'], env);
    expect(configurations.stderr).toContain('working straight on the data folder');
    expect(JSON.parse(configurations.stdout)).toEqual({ configurations: [] });
  });
});
