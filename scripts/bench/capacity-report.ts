import type { LaunchFigures } from './capacity-launch.js';
import { QUICK_BUDGETS } from './quick-budgets.js';
import { markdownTable } from './stats.js';

/** What `npm run bench:capacity` prints: one row per launch, issue 20's budgets met or NOT met. */

const KB = 1024;
const MB = 2 ** 20;
const GB = 2 ** 30;

/** Issue 20's acceptance figures; search p50 is held to issue 19's budgets (bench:quick's). */
export const CAPACITY_BUDGETS = {
  /** Resident memory of the API from this many sections on. */
  rssFrom: 1_000_000,
  rssBytes: 3 * GB,
  /** Launch → first answer, over the same engine's launch on an empty data folder. */
  firstAnswerOverEmptyMs: 2000,
  /** Heap and resident memory per section (over the empty launch's) from this many sections on. */
  perSectionFrom: 100_000,
  heapPerSectionBytes: 1.5 * KB,
  rssPerSectionBytes: 3 * KB,
  contentP50Ms: QUICK_BUDGETS.contentP50Ms,
  uiP50Ms: QUICK_BUDGETS.uiP50Ms,
} as const;

export interface Verdict {
  sections: number;
  engine: string;
  start: LaunchFigures['start'];
  budget: string;
  measured: string;
  target: string;
  met: boolean;
}

const secs = (ms: number | null) => (ms === null ? '—' : `${(ms / 1000).toFixed(2)} s`);
const mb = (bytes: number) => `${Math.round(bytes / MB).toLocaleString('en')} MB`;
const kb = (bytes: number) => `${(bytes / KB).toFixed(2)} KB`;
const firstAnswer = (l: LaunchFigures) => (l.firstAnswerMs.content === null || l.firstAnswerMs.ui === null ? null : Math.max(l.firstAnswerMs.content, l.firstAnswerMs.ui));

/** The same engine's first launch on the empty data folder: what a start costs without any corpus. */
const emptyOf = (all: LaunchFigures[], l: LaunchFigures) => all.find((e) => e.engine === l.engine && e.sections === 0 && e.start === 'cold' && !e.failed);

/** Heap used and resident memory per section, over the empty launch's; null when either reading is missing. */
export function perSection(all: LaunchFigures[], l: LaunchFigures): { heapBytes: number; rssBytes: number } | null {
  const empty = emptyOf(all, l)?.memory;
  if (!l.memory || !empty || l.sections === 0) return null;
  return { heapBytes: (l.memory.heapUsed - empty.heapUsed) / l.sections, rssBytes: (l.memory.vmRss - empty.vmRss) / l.sections };
}

/**
 * Every budget that applies to a launch. The first-answer budget is held against the start an
 * operator restarts into: from the snapshot when the engine wrote one, else the only start there is.
 */
export function verdicts(all: LaunchFigures[]): Verdict[] {
  const b = CAPACITY_BUDGETS;
  const out: Verdict[] = [];
  for (const l of all) {
    if (l.sections === 0) continue;
    const add = (budget: string, value: number | null | undefined, show: (v: number) => string, limit: number, target: string) => {
      const ok = value !== null && value !== undefined && Number.isFinite(value);
      out.push({ sections: l.sections, engine: l.engine, start: l.start, budget, measured: ok ? show(value) : l.failed ? 'launch failed' : 'not measured', target, met: ok && value <= limit });
    };
    const restartedFromSnapshot = all.some((o) => o !== l && o.engine === l.engine && o.sections === l.sections && o.start === 'snapshot');
    if (!(l.start === 'cold' && restartedFromSnapshot)) {
      const empty = emptyOf(all, l);
      const emptyMs = empty ? firstAnswer(empty) : null;
      const limit = emptyMs === null ? Number.NaN : emptyMs + b.firstAnswerOverEmptyMs;
      add('launch → first answer (content and search interface)', firstAnswer(l), secs, limit,
        emptyMs === null ? 'empty start + 2 s (empty start not measured)' : `<= ${secs(limit)} (empty ${secs(emptyMs)} + 2 s)`);
    }
    if (l.sections >= b.rssFrom) add('API resident memory', l.memory?.vmRss, mb, b.rssBytes, `<= ${mb(b.rssBytes)}`);
    if (l.sections >= b.perSectionFrom) {
      const p = perSection(all, l);
      add('heap used per section', p?.heapBytes, kb, b.heapPerSectionBytes, `<= ${kb(b.heapPerSectionBytes)}`);
      add('resident memory per section', p?.rssBytes, kb, b.rssPerSectionBytes, `<= ${kb(b.rssPerSectionBytes)}`);
    }
    const ms = (v: number) => `${v} ms`;
    add('content search p50, c=1', l.search?.content.latencyMs.p50, ms, b.contentP50Ms, `<= ${b.contentP50Ms} ms`);
    add('search interface p50, c=1', l.search?.ui.latencyMs.p50, ms, b.uiP50Ms, `<= ${b.uiP50Ms} ms`);
    add('search interface p50 from the first answer, c=1', l.uiFromFirstAnswer?.latencyMs.p50, ms, b.uiP50Ms, `<= ${b.uiP50Ms} ms`);
  }
  return out;
}

const SHORT: Record<string, string> = {
  'launch → first answer (content and search interface)': 'first answer',
  'API resident memory': 'RSS',
  'heap used per section': 'heap/section',
  'resident memory per section': 'RSS/section',
  'content search p50, c=1': 'content p50',
  'search interface p50, c=1': 'UI p50',
  'search interface p50 from the first answer, c=1': 'UI p50 from first answer',
};

/** One row per launch. */
export function launchRows(all: LaunchFigures[], checks: Verdict[]): string[][] {
  const rows = [[
    'sections', 'engine', 'start', 'first answer content / UI', 'indexes loaded', 'heap used', 'RSS (peak; file-backed)', 'heap / section', 'RSS / section',
    'UI p50 / p99 from first answer', 'content p50 / p99', 'UI p50 / p99', 'snapshot size / write', 'budgets',
  ]];
  for (const l of all) {
    const mine = checks.filter((v) => v.sections === l.sections && v.engine === l.engine && v.start === l.start);
    const missed = mine.filter((v) => !v.met).map((v) => SHORT[v.budget] ?? v.budget);
    const budgets = mine.length === 0 ? '—' : missed.length ? `NOT met: ${missed.join(', ')}` : `met (${mine.length})`;
    const engine = `${l.engine} ${l.commit}`;
    const end = l.resident;
    if (l.failed && !l.search) {
      const rss = end ? `${mb(end.rss)} last seen (${mb(end.peak)})` : '—';
      rows.push([l.sections.toLocaleString('en'), engine, l.start, `FAILED: ${l.failed}`, secs(l.loadedMs), '—', rss, '—', '—', '—', '—', '—', '—', budgets]);
      continue;
    }
    const p = perSection(all, l);
    const lat = (s: NonNullable<LaunchFigures['search']>['content'] | undefined) => (s ? `${s.latencyMs.p50} / ${s.latencyMs.p99} ms${s.errors ? ` (${s.errors} errors)` : ''}` : '—');
    const snap = l.snapshot.files || l.snapshot.writeMs !== null ? `${mb(l.snapshot.bytes)} / ${secs(l.snapshot.writeMs)}` : '—';
    rows.push([
      l.sections.toLocaleString('en'), engine, l.start,
      `${secs(l.firstAnswerMs.content)} / ${secs(l.firstAnswerMs.ui)}`, secs(l.loadedMs),
      l.memory ? mb(l.memory.heapUsed) : '—', l.memory ? `${mb(l.memory.vmRss)}${end ? ` (${mb(end.peak)}; ${mb(end.file)})` : ''}` : '—',
      p ? kb(p.heapBytes) : '—', p ? kb(p.rssBytes) : '—',
      lat(l.uiFromFirstAnswer ?? undefined), lat(l.search?.content), lat(l.search?.ui), snap, l.failed ? `FAILED: ${l.failed}` : budgets,
    ]);
  }
  return rows;
}

export function verdictRows(checks: Verdict[]): string[][] {
  return [
    ['sections', 'engine', 'start', 'budget', 'measured', 'target', 'met'],
    ...checks.map((v) => [v.sections.toLocaleString('en'), v.engine, v.start, v.budget, v.measured, v.target, v.met ? 'met' : 'NOT met']),
  ];
}

/** Where each launch's file-backed pages are: the largest mapped files by resident bytes (the rest summed). */
export function mappedRows(all: LaunchFigures[], shown = 4): string[][] {
  const rows = [['sections', 'engine', 'start', 'file-backed RSS by file, largest first']];
  for (const l of all) {
    if (!l.mappedFiles) continue;
    const named = l.mappedFiles.slice(0, shown).map((f) => `${f.path.split('/').pop()} ${mb(f.rss)}`);
    const rest = l.mappedFiles.slice(shown).reduce((sum, f) => sum + f.rss, 0);
    rows.push([l.sections.toLocaleString('en'), `${l.engine} ${l.commit}`, l.start, [...named, ...(rest ? [`others ${mb(rest)}`] : [])].join(', ')]);
  }
  return rows;
}

export const tables = (all: LaunchFigures[], checks: Verdict[]) =>
  [launchRows(all, checks), mappedRows(all), verdictRows(checks)].filter((r) => r.length > 1).map(markdownTable).join('\n\n');
