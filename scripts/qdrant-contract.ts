// Runs the VectorIndex contract (test/contract/vector-index.contract.ts) and the keyword leg's
// (test/contract/keyword-index.test.ts: the same documents and scores as the embedded engine) against a
// real Qdrant, in collections of their own that are dropped afterwards, and records each behaviour's
// result and time with the server's version in bench-results/qdrant-contract.json.
//   QDRANT_URL=http://localhost:6333 [QDRANT_API_KEY=...] npx tsx scripts/qdrant-contract.ts
import { mkdirSync, writeFileSync } from 'node:fs';
import { startVitest } from 'vitest/node';
import { createQdrantVectorIndex } from '../shared/storage/qdrant/qdrant-vector-index.js';

const TEST_FILES = ['test/contract/vector-index.test.ts', 'test/contract/keyword-index.test.ts'];
const OUT = 'bench-results/qdrant-contract.json';

interface BehaviourResult {
  behaviour: string;
  state: 'passed' | 'failed' | 'pending';
  ms: number | null;
  error?: string;
}

async function main(): Promise<number> {
  const url = process.env.QDRANT_URL;
  if (!url) {
    console.error('QDRANT_URL is not set: give the address of a Qdrant 1.19 (and QDRANT_API_KEY if it wants one).');
    return 2;
  }
  const shown = new URL(url);
  [shown.username, shown.password] = ['', ''];
  const started = Date.now();
  const version = await createQdrantVectorIndex({ url, apiKey: process.env.QDRANT_API_KEY || undefined })
    .serverVersion()
    .catch((e: unknown) => {
      console.error(e instanceof Error ? e.message : String(e));
      return null;
    });
  if (version === null) return 1;

  // No config file: the project's global setup starts Redis, which this contract does not need.
  // The test files read QDRANT_URL and QDRANT_API_KEY from the environment their workers inherit.
  const vitest = await startVitest('test', TEST_FILES, {
    config: false,
    watch: false,
    run: true,
    testNamePattern: 'against a real Qdrant',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
  });
  const modules = vitest.state.getTestModules();
  const behaviours: BehaviourResult[] = [];
  for (const test of modules.flatMap((m) => [...m.children.allTests()])) {
    const result = test.result();
    if (result.state === 'skipped') continue;
    behaviours.push({
      behaviour: test.name,
      state: result.state,
      ms: round(test.diagnostic()?.duration),
      ...(result.state === 'failed' ? { error: result.errors.map((e) => e.message).join('\n').slice(0, 2000) } : {}),
    });
  }
  const moduleErrors = modules.flatMap((m) => m.errors().map((e) => e.message));
  await vitest.close();

  const passed = behaviours.filter((b) => b.state === 'passed').length;
  const report = {
    at: new Date().toISOString(),
    qdrant: { url: shown.toString(), version },
    passed,
    failed: behaviours.length - passed,
    total_ms: Date.now() - started,
    behaviours,
    ...(moduleErrors.length ? { errors: moduleErrors } : {}),
  };
  mkdirSync('bench-results', { recursive: true });
  writeFileSync(OUT, JSON.stringify(report, null, 2) + '\n');

  const width = Math.max(9, ...behaviours.map((b) => b.behaviour.length));
  console.log(`\nQdrant ${version} at ${report.qdrant.url}`);
  console.log(`${'behaviour'.padEnd(width)}  result  ms`);
  for (const b of behaviours) console.log(`${b.behaviour.padEnd(width)}  ${b.state.padEnd(6)}  ${b.ms === null ? '-' : Math.round(b.ms)}`);
  console.log(`${passed}/${behaviours.length} passed; written to ${OUT}`);
  for (const e of moduleErrors) console.error(e);
  return behaviours.length > 0 && passed === behaviours.length && moduleErrors.length === 0 ? 0 : 1;
}

const round = (ms: number | undefined) => (ms === undefined ? null : Math.round(ms * 10) / 10);

process.exitCode = await main();
