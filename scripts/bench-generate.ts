/**
 * `npm run bench:generate`: chat replies under load, with a stub model that answers in 200 ms.
 *
 * A private stack (Redis, API, indexing worker, generation worker with --generator-concurrency, default
 * 64) serves the 530 Python docs pages. A local stub of the OpenAI chat-completions API answers every
 * request after `--model-ms` (default 200) with a sentence of the first source it was given, cited [1].
 * Measured: chat requests one at a time, then `--concurrency` (default 50) at once. For every reply the
 * API's Server-Timing header gives its total and the model's share; "overhead" is the rest (retrieval,
 * queueing on Redis, the worker's citation check, the response), the figure the issue targets
 * (p50 <= 30 ms). Writes bench-results/generate.json.
 */
import os from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { makeTarget, sendJson } from './bench/http-load.js';
import { Cleanup, cpuMeter, machineInfo, reportFailure, startStack, writeResults, type Stack } from './bench/processes.js';
import { distribution, markdownTable, round } from './bench/stats.js';
import { startStubChat } from './bench/stub-chat-server.js';
import { loadFaqQuestions, loadPythonDocs } from './eval/python-docs.js';
import { pushPages } from './eval/ui-search-client.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const say = (m: string) => console.error(`[bench] ${m}`);

interface Sample {
  status: number;
  latencyMs: number;
  serverMs: number;
  modelMs: number;
}

const timing = (header: string | null, name: string) => Number(header?.match(new RegExp(`${name};dur=([\\d.]+)`))?.[1] ?? NaN);

async function chat(baseUrl: string, uid: string, query: string, session: string): Promise<Sample> {
  const t0 = performance.now();
  const res = await fetch(`${baseUrl}/v1/ui/chat`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ uid, query, 'session-id': session, preview: true }),
  });
  await res.text();
  const st = res.headers.get('server-timing');
  return { status: res.status, latencyMs: performance.now() - t0, serverMs: timing(st, 'total'), modelMs: timing(st, 'model') };
}

function summarize(samples: Sample[]) {
  const ok = samples.filter((s) => s.status === 200);
  return {
    requests: samples.length,
    errors: samples.length - ok.length,
    latencyMs: distribution(ok.map((s) => s.latencyMs)),
    modelMs: distribution(ok.map((s) => s.modelMs)),
    overheadMs: distribution(ok.map((s) => s.latencyMs - s.modelMs)),
    serverOverheadMs: distribution(ok.map((s) => s.serverMs - s.modelMs)),
  };
}

async function main() {
  const { values } = parseArgs({ options: { concurrency: { type: 'string' }, 'model-ms': { type: 'string' }, 'generator-concurrency': { type: 'string' }, sequential: { type: 'string' } } });
  const concurrency = Number(values.concurrency ?? 50);
  const modelMs = Number(values['model-ms'] ?? 200);
  const generatorConcurrency = Number(values['generator-concurrency'] ?? 64);
  const sequential = Number(values.sequential ?? 30);
  const cleanup = new Cleanup();
  cleanup.onSignals(say);
  let stack: Stack | undefined;
  try {
    const stub = await startStubChat();
    cleanup.add('stop stub model', () => stub.close());
    stub.state.delayMs = modelMs;
    stub.state.reply = (messages) => {
      // Quote the first source's first sentence, so the citation check finds it supported.
      const user = messages.at(-1)?.content ?? '';
      const text = user.match(/<source id="1"[^>]*>([\s\S]*?)<\/source>/)?.[1] ?? '';
      const sentence = text.replace(/\s+/g, ' ').trim().match(/^.{20,300}?[.!?](?=\s|$)/)?.[0] ?? text.slice(0, 200);
      return `${sentence} [1]`;
    };
    const loadAvg = os.loadavg();
    say(`starting redis, API, indexing worker and generation worker (concurrency ${generatorConcurrency}); stub model answers in ${modelMs} ms`);
    stack = await startStack(root, cleanup, {
      QUARRY_LLM_PROVIDER: 'openai', QUARRY_LLM_URL: stub.url, QUARRY_LLM_MODEL: 'stub', QUARRY_GENERATION_CONCURRENCY: String(generatorConcurrency),
      QUARRY_RATE_LIMIT_CLIENT: '1000000/1', QUARRY_RATE_LIMIT_UID: '1000000/1',
    });
    const api = makeTarget(stack.baseUrl, { 'x-api-key': stack.masterKey }, 64);
    cleanup.add('close client sockets', () => api.agent.destroy());
    const data = join(root, '../shared/data/python-docs');
    const pages = loadPythonDocs(join(data, 'python-3.11.2-html.tar.gz'));
    const questions = loadFaqQuestions(join(data, 'faq_questions.jsonl')).map((q) => q.question);
    say(`pushing ${pages.length} pages`);
    await pushPages(api, 'docs', pages, () => stack!.assertAlive(), say);
    const { uid } = await sendJson<{ uid: string }>(api, 'POST', '/v1/admin/configurations', { variant: 'ui', name: 'bench', indexes: ['docs'], result_count: 5 });

    say('warm-up: 5 chats');
    for (let i = 0; i < 5; i++) await chat(stack.baseUrl, uid, questions[i], `warm-${i}`);
    say(`one at a time: ${sequential} chats`);
    const single: Sample[] = [];
    for (let i = 0; i < sequential; i++) single.push(await chat(stack.baseUrl, uid, questions[(i + 5) % questions.length], `seq-${i}`));
    say(`${concurrency} chats at once`);
    const meter = cpuMeter({ api: stack.api.pid, generator: stack.generator.pid, redis: stack.redisPid });
    const t0 = performance.now();
    const burst = await Promise.all(Array.from({ length: concurrency }, (_, i) => chat(stack!.baseUrl, uid, questions[(i + 40) % questions.length], `burst-${i}`)));
    const burstWallMs = performance.now() - t0;
    const burstCpu = meter();
    stack.assertAlive();

    const one = summarize(single);
    const many = summarize(burst);
    const waves = Math.ceil(concurrency / generatorConcurrency);
    const bound = 2 * one.latencyMs.p50 + (waves - 1) * modelMs;
    const rows = [
      ['run', 'requests', 'errors', 'latency p50 / p95 ms', 'model p50 ms', 'overhead p50 / p95 ms (client)', 'overhead p50 / p95 ms (server)'],
      ...([['one at a time', one], [`${concurrency} at once`, many]] as const).map(([name, s]) => [
        name, String(s.requests), String(s.errors), `${round(s.latencyMs.p50, 1)} / ${round(s.latencyMs.p95, 1)}`, String(round(s.modelMs.p50, 1)),
        `${round(s.overheadMs.p50, 1)} / ${round(s.overheadMs.p95, 1)}`, `${round(s.serverOverheadMs.p50, 1)} / ${round(s.serverOverheadMs.p95, 1)}`,
      ]),
    ];
    console.log(`\n${markdownTable(rows)}\n`);
    const checks = [
      ['all concurrent chats succeed', many.errors === 0],
      [`p95 at ${concurrency} at once (${round(many.latencyMs.p95, 1)} ms) <= 2x single p50 + queueing (${waves - 1} extra wave(s) of ${modelMs} ms at concurrency ${generatorConcurrency}) = ${round(bound, 1)} ms`, many.latencyMs.p95 <= bound],
      [`overhead p50 (server) ${round(one.serverOverheadMs.p50, 1)} ms <= 30 ms`, one.serverOverheadMs.p50 <= 30],
    ] as const;
    for (const [what, ok] of checks) console.log(`${ok ? 'met    ' : 'NOT met'}  ${what}`);
    console.log(`\n${concurrency} chats at once took ${round(burstWallMs, 0)} ms wall time; CPU meanwhile (% of one core): ${Object.entries(burstCpu).map(([k, v]) => `${k} ${v}%`).join(', ')} (bench includes the stub model and the 50 clients).`);
    writeResults(root, 'generate.json', {
      timestamp: new Date().toISOString(), machine: machineInfo(loadAvg, null),
      settings: { concurrency, modelMs, generatorConcurrency, sequential, pages: pages.length, request: 'POST /v1/ui/chat (preview), JSON' },
      single: one, concurrent: { ...many, wallMs: round(burstWallMs, 1), cpuPct: burstCpu }, checks: checks.map(([what, ok]) => ({ what, ok })),
    }, say);
  } catch (err) {
    reportFailure(err, cleanup, stack, 'bench');
  } finally {
    await cleanup.run();
  }
}

await main();
