// Search-interface configurations (API Tool / API UI) from the command line, through the running
// service's admin API (the routes the web app uses), or, when no server is running, through the same
// service and validation straight on the storage:
//   npm run configurations -- create --variant ui --name Help --indexes docs [--result-count 8] [--origins https://a.com,https://b.com]
//   npm run configurations -- list | show UID | delete UID
//   npm run configurations -- update UID [--name N] [--indexes a,b] [--result-count N] [--origins ...] [--top-questions "Q1|Q2"] [--fusion rrf|weighted]
//   npm run configurations -- answer UID --title T --content HTML [--link URL] [--keywords a,b]
// Options --url (or QUARRY_URL, default http://localhost:$PORT) and --key (or QUARRY_MASTER_KEY, default:
// the data folder's master-key).
import { parseArgs } from 'node:util';
import { loadConfig } from '../shared/config/config.js';
import type { Storage } from '../shared/storage/create-storage.js';
import { createConfigurationSchema, createInstantAnswerSchema, updateConfigurationSchema } from '../api/schemas/configuration-schemas.js';
import { validate } from '../api/schemas/validate.js';
import { ConfigurationService } from '../api/services/configuration-service.js';
import { adminClient, listAll, viaApiOrStorage } from './admin-client.js';

const USAGE = `usage: npm run configurations -- create --variant tool|ui --name NAME --indexes a,b [--result-count N] [--origins o1,o2] [--top-questions "Q1|Q2"]
       npm run configurations -- list | show UID | delete UID | update UID [same options]
       npm run configurations -- answer UID --title TITLE --content HTML [--link URL] [--keywords a,b]
       any of them with [--url QUARRY_URL] [--key MASTER_KEY]`;

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    variant: { type: 'string' }, name: { type: 'string' }, indexes: { type: 'string' }, 'result-count': { type: 'string' },
    origins: { type: 'string' }, 'top-questions': { type: 'string' }, fusion: { type: 'string' }, 'min-queries': { type: 'string' },
    title: { type: 'string' }, content: { type: 'string' }, link: { type: 'string' }, keywords: { type: 'string' },
    url: { type: 'string' }, key: { type: 'string' },
  },
});
const [command, uid] = positionals;
const config = loadConfig();
const client = adminClient(config, values);
const list = (s: string | undefined, sep = ',') => (s === undefined ? undefined : s.split(sep).map((x) => x.trim()).filter(Boolean));
const num = (s: string | undefined) => (s === undefined ? undefined : Number(s));
const path = (...parts: string[]) => ['/v1/admin/configurations', ...parts.map(encodeURIComponent)].join('/');

function settings() {
  const body: Record<string, unknown> = {
    name: values.name, indexes: list(values.indexes), result_count: num(values['result-count']), allowed_origins: list(values.origins),
    top_questions: list(values['top-questions'], '|'), fusion: values.fusion, autocomplete_min_queries: num(values['min-queries']),
  };
  return Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined));
}

/**
 * The request the route would get (or, for a listing, how to read all its pages), and what the route does with
 * it when no server is running.
 */
function operation(): { method: string; path: string; body?: unknown; remote?: () => Promise<unknown>; local: (s: ConfigurationService, storage: Storage) => Promise<unknown> } | null {
  if (command === 'create') {
    const body = { variant: values.variant, ...settings() };
    return { method: 'POST', path: path(), body, local: async (s) => s.view(await s.create(validate(createConfigurationSchema, body))) };
  }
  if (command === 'list') {
    return {
      method: 'GET', path: path(), remote: async () => ({ configurations: await listAll(client, path(), 'configurations') }),
      local: async (s, storage) => ({ configurations: (await storage.configurations.list()).map((c) => s.view(c)) }),
    };
  }
  if (!uid) return null;
  if (command === 'show') return { method: 'GET', path: path(uid), local: async (s) => s.view(await s.get(uid)) };
  if (command === 'update') {
    const body = settings();
    return { method: 'PATCH', path: path(uid), body, local: async (s) => s.view(await s.update(uid, validate(updateConfigurationSchema, body))) };
  }
  if (command === 'delete') return { method: 'DELETE', path: path(uid), local: (s) => s.delete(uid) };
  if (command === 'answer') {
    const body = { title: values.title, content: values.content, ...(values.link ? { url: values.link } : {}), keywords: list(values.keywords) ?? [] };
    return {
      method: 'POST', path: path(uid, 'instant-answers'), body,
      local: async (s) => s.answerView(await s.addInstantAnswer(uid, validate(createInstantAnswerSchema, body))),
    };
  }
  return null;
}

const op = operation();
if (!op) {
  console.log(USAGE);
  process.exitCode = 2;
} else {
  try {
    const remote = op.remote ?? (() => client.call(op.method, op.path, op.body));
    const out = await viaApiOrStorage(client, config, remote, (storage) => op.local(new ConfigurationService(storage), storage));
    if (out !== undefined && out !== null) console.log(JSON.stringify(out, null, 2));
  } catch (err) {
    console.error((err as Error).message);
    process.exitCode = 1;
  }
}
