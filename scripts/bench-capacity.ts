/**
 * `npm run bench:capacity`: what one API process needs as the corpus grows (issue 20). For each size,
 * one index of synthetic SciFact-size pages (one section each) in an embedded data folder seeded
 * once and kept in the cache folder; one compiled API process (no workers) launched on it and
 * measured: launch → first answered search (content search and the search interface), the "search
 * indexes loaded" line, search p50/p99 at concurrency 1, heap used and RSS after a full GC (per
 * section over the same engine on an empty data folder), and the engine's snapshot files (size,
 * write time) when it writes any, with a second launch that starts from them. With --baseline, a
 * second checkout's compiled API runs on the same data folders in the same run. Prints a table and
 * issue 20's budgets met/NOT met; writes bench-results/capacity.json.
 *
 *   --sections 10000,100000,1000000   sizes (sections = documents); --quick: 10000 only
 *   --baseline PATH                   another checkout (its dist/ built) run beside this one
 *   --cache-dir DIR                   seeded data folders (default: <tmp>/quarry-bench-capacity)
 *   --searches 200  --warmup 200      timed searches of each kind per launch, after untimed ones (as many as bench:search's warm-up, whose budgets the p50s are held to)
 *   --launch-timeout 600              seconds a launch may take to answer and load, else it failed
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readSync, rmSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ensureServer } from './build-server.mjs';
import { CAPACITY_CORPUS_VERSION, capacityVocabulary } from './bench/capacity-corpus.js';
import { LOADED_MESSAGE, SNAPSHOT_FILES, SNAPSHOT_MESSAGE, measureLaunch, removeSnapshots, type Engine, type LaunchFigures, type LaunchSettings } from './bench/capacity-launch.js';
import { CAPACITY_BUDGETS, tables, verdicts } from './bench/capacity-report.js';
import { CAPACITY_INDEX, seededFolder, type SeededFolder } from './bench/capacity-seed.js';
import { Cleanup, machineBefore, machineInfo, reportFailure, startPrivateRedis, writeResults } from './bench/processes.js';
import { makeQueries } from './bench/search-corpus.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const say = (m: string) => console.error(`[capacity] ${m}`);

function settingsFromArgs() {
  const { values } = parseArgs({
    options: {
      sections: { type: 'string' }, quick: { type: 'boolean' }, baseline: { type: 'string' }, 'cache-dir': { type: 'string' },
      searches: { type: 'string' }, warmup: { type: 'string' }, 'launch-timeout': { type: 'string' },
    },
    strict: true,
  });
  const num = (k: 'searches' | 'warmup' | 'launch-timeout', d: number, min: number) => {
    const v = values[k] === undefined ? d : Number(values[k]);
    if (!Number.isInteger(v) || v < min) throw new Error(`--${k} must be a whole number >= ${min}`);
    return v;
  };
  if (values.quick && values.sections) throw new Error('--quick and --sections: give one');
  const sizes = (values.quick ? '10000' : values.sections ?? '10000,100000,1000000').split(',').map(Number);
  if (sizes.some((n) => !Number.isInteger(n) || n < 1)) throw new Error('--sections takes a list such as 10000,100000,1000000');
  return {
    sizes: [...new Set(sizes)].sort((a, b) => a - b),
    baseline: values.baseline ? resolve(values.baseline) : null,
    cacheDir: resolve(values['cache-dir'] ?? join(tmpdir(), 'quarry-bench-capacity')),
    searches: num('searches', 200, 1),
    warmup: num('warmup', 200, 0),
    launchTimeoutS: num('launch-timeout', 600, 10),
  };
}

function engineAt(name: string, checkout: string): Engine {
  if (!existsSync(join(checkout, 'dist', 'api', 'main.js'))) {
    throw new Error(`${checkout} has no dist/api/main.js: build it there first (npm run build, with its node_modules installed)`);
  }
  let commit = 'unknown';
  try {
    commit = execFileSync('git', ['-C', checkout, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  } catch {
    // not a git checkout: the label says so
  }
  return { name, root: checkout, commit };
}

/**
 * Reads the data folder's files once, so every launch finds them in the OS page cache (as a restart
 * of a running server would) and the first engine to run is not the one that pays for the disk.
 */
function readThrough(dataDir: string): void {
  const buf = Buffer.allocUnsafe(1 << 22);
  for (const f of readdirSync(dataDir, { withFileTypes: true })) {
    if (!f.isFile()) continue;
    const fd = openSync(join(dataDir, f.name), 'r');
    try {
      while (readSync(fd, buf, 0, buf.length, null) > 0);
    } finally {
      closeSync(fd);
    }
  }
}

async function main() {
  const o = settingsFromArgs();
  const cleanup = new Cleanup();
  cleanup.onSignals(say);
  try {
    const { loadAvg, idleCpu } = await machineBefore(say);
    await ensureServer();
    const engines = [engineAt('current', root), ...(o.baseline ? [engineAt('baseline', o.baseline)] : [])];
    say(`engines: ${engines.map((e) => `${e.name} ${e.commit} (${e.root})`).join(', ')}`);

    mkdirSync(o.cacheDir, { recursive: true, mode: 0o700 });
    const folders: SeededFolder[] = [];
    for (const n of [0, ...o.sizes]) {
      say(`data folder for ${n.toLocaleString('en')} sections (${o.cacheDir})`);
      const f = await seededFolder(o.cacheDir, n, say);
      say(f.reused ? `  reused (seeded in ${f.info.seedSeconds} s on ${f.info.createdAt})` : `  seeded in ${f.info.seedSeconds} s`);
      folders.push(f);
    }

    const tmp = mkdtempSync(join(tmpdir(), 'quarry-capacity-'));
    cleanup.add('remove temp folder', () => rmSync(tmp, { recursive: true, force: true }));
    const probeDir = join(tmp, 'probe');
    mkdirSync(probeDir);
    const redis = await startPrivateRedis(join(tmp, 'redis'), cleanup);
    const launch: LaunchSettings = {
      redisUrl: redis.url, masterKey: `qc_${randomBytes(24).toString('base64url')}`, probeDir,
      queries: makeQueries(capacityVocabulary(), o.warmup + o.searches, 7), warmup: o.warmup, searches: o.searches,
      timeoutMs: o.launchTimeoutS * 1000, cleanup, say,
    };

    const launches: LaunchFigures[] = [];
    for (const f of folders) {
      readThrough(f.dataDir);
      const folder = { dataDir: f.dataDir, sections: f.info.sections, index: CAPACITY_INDEX, uiUid: f.info.uiUid };
      for (const engine of engines) {
        const removed = removeSnapshots(f.dataDir);
        if (removed) say(`removed ${removed} snapshot file(s) an earlier launch left`);
        for (const start of ['cold', 'snapshot'] as const) {
          say(`${engine.name}: ${folder.sections.toLocaleString('en')} sections, ${start} start`);
          const l = await measureLaunch(engine, folder, start, launch);
          launches.push(l);
          const mem = l.memory ? `, RSS ${Math.round(l.memory.vmRss / 2 ** 20)} MB, heap ${Math.round(l.memory.heapUsed / 2 ** 20)} MB` : '';
          say(`  first answer ${l.firstAnswerMs.content} / ${l.firstAnswerMs.ui} ms, loaded ${l.loadedMs} ms${mem}, `
            + `p50 ${l.search?.content.latencyMs.p50} / ${l.search?.ui.latencyMs.p50} ms, snapshot files ${l.snapshot.files}${l.failed ? `; FAILED: ${l.failed}` : ''}`);
          // A second start only where the first left snapshot files to start from.
          if (l.failed || l.snapshot.files === 0) break;
        }
      }
    }

    const checks = verdicts(launches);
    const met = checks.filter((v) => v.met).length;
    console.log(`\n${tables(launches, checks)}\n\n${met} of ${checks.length} budgets met.\n`);
    writeResults(root, 'capacity.json', {
      timestamp: new Date().toISOString(), machine: machineInfo(loadAvg, idleCpu), loadAvgAtEnd: os.loadavg().map((v) => Number(v.toFixed(2))),
      settings: {
        ...o, corpusVersion: CAPACITY_CORPUS_VERSION, index: CAPACITY_INDEX, engines, budgets: CAPACITY_BUDGETS,
        corpus: 'synthetic pages (title 7-19 words, one paragraph of 120-280 words: SciFact lengths), Zipf over 50,000 GloVe words; one section each',
        seeding: 'in the bench process, through the stores and the index job of the workers (default GloVe embedder), batches of 2,000',
        api: 'dist/api/main.js of each checkout, QUARRY_API_PROCESSES=1, QUARRY_LOG_LEVEL=info, no workers, a private Redis',
        firstAnswer: 'spawn -> first 200 with results (any 200 on the empty folder), polled one request at a time per kind',
        search: 'sequential (c=1): POST /v1/content/search {boosting: "title content", limit 10} and GET /v1/ui/search (hybrid, 10 results), bench:search query mix',
        memory: 'VmRSS and heapUsed after two full GCs (SIGUSR2 to the preloaded probe), after the searches; per section: minus the same engine on the empty folder',
        loadedLine: LOADED_MESSAGE, snapshotFiles: String(SNAPSHOT_FILES), snapshotLine: String(SNAPSHOT_MESSAGE),
      },
      seeds: folders.map((f) => ({ ...f.info, dataDir: f.dataDir, reused: f.reused })),
      launches, verdicts: checks,
    }, say);
  } catch (err) {
    reportFailure(err, cleanup, undefined, 'capacity');
  } finally {
    await cleanup.run();
  }
}

await main();
