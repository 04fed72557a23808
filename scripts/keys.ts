// API keys from the command line, straight on the data folder (no running server needed):
//   npm run keys -- create --name pusher --permissions read,write [--indexes docs,blog]
//   npm run keys -- list
//   npm run keys -- revoke <id>
import { parseArgs } from 'node:util';
import { createApiKey } from '../shared/auth/api-keys.js';
import { loadConfig } from '../shared/config/config.js';
import { createStorage } from '../shared/storage/create-storage.js';
import type { Permission } from '../shared/storage/ports/key-store.js';

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { name: { type: 'string' }, permissions: { type: 'string', default: 'read,write' }, indexes: { type: 'string' } },
});
const [command, arg] = positionals;
const storage = await createStorage(loadConfig().storage);
const list = (s?: string) => (s ? s.split(',').map((x) => x.trim()).filter(Boolean) : []);

try {
  if (command === 'create') {
    if (!values.name) throw new Error('--name is required, e.g. --name my-pusher');
    const permissions = list(values.permissions);
    const bad = permissions.filter((p) => !['read', 'write', 'admin'].includes(p));
    if (bad.length || permissions.length === 0) throw new Error(`--permissions takes read, write and/or admin (got: ${values.permissions})`);
    const k = await createApiKey(storage.keys, { name: values.name, permissions: permissions as Permission[], indexes: list(values.indexes) });
    console.log(`Created key ${k.id} (${k.name}) with ${k.permissions.join(', ')} on ${k.indexes ? k.indexes.join(', ') : 'all indexes'}.`);
    console.log(`\n  ${k.key}\n`);
    console.log('This secret is shown only now; store it. Send it as the X-API-Key header.');
  } else if (command === 'list') {
    for (const k of await storage.keys.list()) {
      console.log(`${k.id}  ${k.prefix}…  ${k.name}  [${k.permissions.join(',')}]  ${k.indexes?.join(',') ?? '*'}${k.revokedAt ? '  (revoked)' : ''}`);
    }
  } else if (command === 'revoke' && arg) {
    console.log((await storage.keys.revoke(arg)) ? `Revoked ${arg}` : `No active key ${arg}`);
  } else {
    console.log('usage: npm run keys -- create --name NAME [--permissions read,write] [--indexes a,b] | list | revoke ID');
    process.exitCode = 2;
  }
} catch (err) {
  console.error((err as Error).message);
  process.exitCode = 1;
} finally {
  await storage.close();
}
