// API keys from the command line, through the running service's admin API (the routes the web app uses),
// or straight on the storage when no server is running (bootstrap):
//   npm run keys -- create --name pusher --permissions read,write [--indexes docs,blog]   (an admin key takes no --indexes)
//   npm run keys -- list
//   npm run keys -- revoke <id>
// Options --url (or QUARRY_URL, default http://localhost:$PORT) and --key (or QUARRY_MASTER_KEY, default:
// the data folder's master-key).
import { parseArgs } from 'node:util';
import { createApiKey, scopeOf } from '../shared/auth/api-keys.js';
import { loadConfig } from '../shared/config/config.js';
import { AppError } from '../shared/errors/app-error.js';
import { createKeySchema } from '../api/schemas/admin-schemas.js';
import { validate } from '../api/schemas/validate.js';
import { adminClient, listAll, viaApiOrStorage } from './admin-client.js';

const USAGE = 'usage: npm run keys -- create --name NAME [--permissions read,write] [--indexes a,b] | list | revoke ID  [--url URL] [--key MASTER_KEY]';

interface KeyRow {
  id: string; name: string; prefix: string; permissions: string[]; indexes: string[] | null;
  revoked_at: string | null; last_used_at: string | null;
}

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    name: { type: 'string' }, permissions: { type: 'string', default: 'read,write' }, indexes: { type: 'string' },
    url: { type: 'string' }, key: { type: 'string' },
  },
});
const [command, arg] = positionals;
const config = loadConfig();
const client = adminClient(config, values);
const list = (s?: string) => (s ? s.split(',').map((x) => x.trim()).filter(Boolean) : []);
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

async function create() {
  // The API's own body, so both paths answer a bad option with the API's message.
  const body = { name: values.name, permissions: list(values.permissions), ...(values.indexes ? { indexes: list(values.indexes) } : {}) };
  const k = await viaApiOrStorage(client, config,
    () => client.call('POST', '/v1/admin/keys', body),
    (storage) => createApiKey(storage.keys, validate(createKeySchema, body)));
  console.log(`Created key ${k.id} (${k.name}) with ${k.permissions.join(', ')} on ${k.indexes ? k.indexes.join(', ') : 'all indexes'}.`);
  console.log(`\n  ${k.key}\n`);
  console.log('This secret is shown only now; store it. Send it as the X-API-Key header.');
}

async function show() {
  const keys: KeyRow[] = await viaApiOrStorage(client, config,
    () => listAll<KeyRow>(client, '/v1/admin/keys', 'keys'),
    async (storage) => (await storage.keys.list()).map((k) => ({ ...k, indexes: scopeOf(k), revoked_at: iso(k.revokedAt), last_used_at: iso(k.lastUsedAt) })));
  for (const k of keys) {
    const used = k.last_used_at ? `last used ${k.last_used_at}` : 'never used';
    console.log(`${k.id}  ${k.prefix}…  ${k.name}  [${k.permissions.join(',')}]  ${k.indexes?.join(',') ?? '*'}  ${used}${k.revoked_at ? '  (revoked)' : ''}`);
  }
}

async function revoke(id: string) {
  await viaApiOrStorage(client, config,
    () => client.call('DELETE', `/v1/admin/keys/${encodeURIComponent(id)}`),
    async (storage) => {
      // What the route does: the key's web-app sessions end with it.
      if (!(await storage.keys.revoke(id))) throw new AppError('not_found', `API key '${id}' does not exist or is already revoked`);
      await storage.sessions.deleteOfKey(id);
    });
  console.log(`Revoked ${id}`);
}

try {
  if (command === 'create') await create();
  else if (command === 'list') await show();
  else if (command === 'revoke' && arg) await revoke(arg);
  else {
    console.log(USAGE);
    process.exitCode = 2;
  }
} catch (err) {
  console.error((err as Error).message);
  process.exitCode = 1;
}
