// Search-interface configurations (API Tool / API UI) from the command line, through the running
// service's admin API, so every rule of the API (validation, sanitizing) applies:
//   npm run configurations -- create --variant ui --name Help --indexes docs [--result-count 8] [--origins https://a.com,https://b.com]
//   npm run configurations -- list | show UID | delete UID
//   npm run configurations -- update UID [--name N] [--indexes a,b] [--result-count N] [--origins ...] [--top-questions "Q1|Q2"] [--fusion rrf|weighted]
//   npm run configurations -- answer UID --title T --content HTML [--url URL] [--keywords a,b]
// QUARRY_URL (default http://127.0.0.1:$PORT) and QUARRY_MASTER_KEY (default: the data folder's master-key).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../shared/config/config.js';

const USAGE = `usage: npm run configurations -- create --variant tool|ui --name NAME --indexes a,b [--result-count N] [--origins o1,o2] [--top-questions "Q1|Q2"]
       npm run configurations -- list | show UID | delete UID | update UID [same options]
       npm run configurations -- answer UID --title TITLE --content HTML [--url URL] [--keywords a,b]`;

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    variant: { type: 'string' }, name: { type: 'string' }, indexes: { type: 'string' }, 'result-count': { type: 'string' },
    origins: { type: 'string' }, 'top-questions': { type: 'string' }, fusion: { type: 'string' }, 'min-queries': { type: 'string' },
    title: { type: 'string' }, content: { type: 'string' }, url: { type: 'string' }, keywords: { type: 'string' },
  },
});
const [command, uid] = positionals;
const config = loadConfig();
const base = process.env.QUARRY_URL ?? `http://127.0.0.1:${config.http.port}`;
const keyFile = join(config.storage.dataDir, 'master-key');
const key = config.auth.masterKey ?? (existsSync(keyFile) ? readFileSync(keyFile, 'utf8').trim() : '');
const list = (s: string | undefined, sep = ',') => (s === undefined ? undefined : s.split(sep).map((x) => x.trim()).filter(Boolean));
const num = (s: string | undefined) => (s === undefined ? undefined : Number(s));

function settings() {
  const body: Record<string, unknown> = {
    name: values.name, indexes: list(values.indexes), result_count: num(values['result-count']), allowed_origins: list(values.origins),
    top_questions: list(values['top-questions'], '|'), fusion: values.fusion, autocomplete_min_queries: num(values['min-queries']),
  };
  return Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined));
}

async function call(method: string, path: string, body?: unknown) {
  let res: Response;
  try {
    res = await fetch(base + path, { method, headers: { 'content-type': 'application/json', 'x-api-key': key }, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch {
    throw new Error(`cannot reach Quarry at ${base}; start it with npm start, or set QUARRY_URL`);
  }
  const text = await res.text();
  const parsed = text ? JSON.parse(text) : null;
  if (!res.ok) throw new Error(`${res.status}: ${parsed?.message ?? text}`);
  return parsed;
}

async function main() {
  if (command === 'create') return call('POST', '/v1/admin/configurations', { variant: values.variant, ...settings() });
  if (command === 'list') return call('GET', '/v1/admin/configurations');
  if (command === 'show' && uid) return call('GET', `/v1/admin/configurations/${encodeURIComponent(uid)}`);
  if (command === 'update' && uid) return call('PATCH', `/v1/admin/configurations/${encodeURIComponent(uid)}`, settings());
  if (command === 'delete' && uid) return call('DELETE', `/v1/admin/configurations/${encodeURIComponent(uid)}`);
  if (command === 'answer' && uid) {
    return call('POST', `/v1/admin/configurations/${encodeURIComponent(uid)}/instant-answers`, {
      title: values.title, content: values.content, ...(values.url ? { url: values.url } : {}), keywords: list(values.keywords) ?? [],
    });
  }
  console.log(USAGE);
  process.exitCode = 2;
  return undefined;
}

main().then(
  (out) => {
    if (out !== undefined && out !== null) console.log(JSON.stringify(out, null, 2));
  },
  (err: Error) => {
    console.error(err.message);
    process.exitCode = 1;
  },
);
