import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../shared/logging/create-logger.js';
import { startTestService, waitFor, type TestService } from '../helpers/test-service.js';

/**
 * API.md: session ids are never stored raw and a preview leaves no trace. The request log is storage
 * too: these tests read what the app's real logger writes (info level, as in production) during widget calls.
 */
const lines: string[] = [];
const sink = new Writable({
  write(chunk: Buffer, _enc, done) {
    lines.push(...chunk.toString().split('\n').filter(Boolean));
    done();
  },
});
let svc: TestService;
let uid: string;

beforeAll(async () => {
  svc = await startTestService({ log: createLogger('info', 'api', sink) });
  await svc.call('POST', '/v1/admin/indexes', { uid: 'privacy' });
  expect((await svc.call('PUT', '/v2/indexes/privacy/documents/refunds', { title: 'Refunds', content: '<p>Refunds take five days.</p>' })).status).toBe(204);
  const created = await svc.call('POST', '/v1/admin/configurations', { variant: 'ui', name: 'Privacy', indexes: ['privacy'] });
  uid = created.body.uid;
  await waitFor(async () => (await svc.call('GET', '/v2/indexes/privacy/status')).body.pending === 0);
});
afterAll(async () => {
  await svc?.close();
});

/** Request-log lines written since `from`, parsed. */
const requestLines = (from: number) => lines.slice(from).map((l) => JSON.parse(l) as { msg: string; req?: { url: string }; res?: { statusCode: number } });

describe('request logs keep no query text and no raw session id', () => {
  it('GET widget calls, previews included, log their route and status, not the query or the session id', async () => {
    const from = lines.length;
    const calls = [
      `/v1/ui/search?uid=${uid}&query=confidential%20refund%20question&session-id=raw-session-4711`,
      `/v1/ui/search?uid=${uid}&query=confidential%20refund%20question&session-id=raw-session-4711&preview=true`,
      `/v1/ui/autocomplete?uid=${uid}&query=confidential`,
      `/v1/ui/summary?uid=${uid}&query=confidential%20refund%20question&session-id=raw-session-4711&preview=true`,
    ];
    for (const path of calls) expect((await fetch(svc.url + path)).status).toBe(200);
    const logged = requestLines(from).filter((l) => l.msg === 'request completed');
    expect(logged.map((l) => l.req!.url)).toEqual([
      '/v1/ui/search?uid&query&session-id',
      '/v1/ui/search?uid&query&session-id&preview',
      '/v1/ui/autocomplete?uid&query',
      '/v1/ui/summary?uid&query&session-id&preview',
    ]);
    expect(logged.every((l) => l.res!.statusCode === 200)).toBe(true);
    const text = lines.slice(from).join('\n');
    expect(text).not.toContain('confidential');
    expect(text).not.toContain('raw-session-4711');
  });

  it('a session id in the X-Session-Id header and a rejected query leave no trace in the log either', async () => {
    const from = lines.length;
    const header = await fetch(`${svc.url}/v1/ui/search?uid=${uid}&query=confidential`, { headers: { 'x-session-id': 'raw-session-4712' } });
    expect(header.status).toBe(200);
    const tooLong = await fetch(`${svc.url}/v1/ui/search?uid=${uid}&session-id=raw-session-4713&query=${'confidential'.repeat(60)}`);
    expect(tooLong.status).toBe(400);
    const text = lines.slice(from).join('\n');
    expect(requestLines(from).filter((l) => l.msg === 'request completed')).toHaveLength(2);
    expect(text).not.toContain('confidential');
    expect(text).not.toMatch(/raw-session-471[23]/);
  });
});
