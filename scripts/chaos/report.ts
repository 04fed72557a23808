import { PUSH_KINDS, type RequestRecord } from './requests.js';
import type { Outage } from './scenarios.js';
import type { HealthFigures } from './probe.js';
import type { ProcessKind, ProcessStats } from './supervisor.js';
import type { Verdict } from './verify.js';

/** A request within this long after an outage ended still counts as during it (reconnects, restarts). */
const OUTAGE_GRACE_MS = 2000;

export interface RequestFigures {
  /** Per request kind: sent, answered 2xx, and answer times (ms, any outcome) at the median, 99th percentile and slowest. */
  requests: Record<string, { sent: number; ok: number; p50Ms?: number; p99Ms?: number; maxMs?: number }>;
  hung: number;
  /** 5xx while none of the request's dependencies was away: goal 0. */
  unexpected5xx: number;
  /** 5xx during an outage of one of its dependencies (503, 504, 502), and how many lacked the spec's body. */
  outage5xx: number;
  /** Answers other than 2xx by kind and status (`put 503`), outage or not: what clients saw. */
  errorStatuses: Record<string, number>;
  /** Error answers (>= 400) whose body is not `{code, message}`: goal 0. */
  badBodies: number;
  /** 4xx to well-formed requests (the load sends nothing invalid). */
  unexpected4xx: number;
  /** No answer at all (refused, reset) while the API was not down. */
  unexpectedNet: number;
  /** Longest stretch, in ms, from a failed push (or search) to the next one that succeeded. */
  longestPushGapMs: number;
  longestSearchGapMs: number;
  examples: string[];
}

const inOutage = (r: RequestRecord, outages: Outage[]) =>
  outages.some((o) => o.kinds.includes(r.kind) && r.start <= o.to + OUTAGE_GRACE_MS && r.end >= o.from);

export function requestFigures(records: RequestRecord[], outages: Outage[]): RequestFigures {
  const f: RequestFigures = {
    requests: {}, hung: 0, unexpected5xx: 0, outage5xx: 0, errorStatuses: {}, badBodies: 0, unexpected4xx: 0, unexpectedNet: 0,
    longestPushGapMs: longestGap(records.filter((r) => PUSH_KINDS.includes(r.kind))),
    longestSearchGapMs: longestGap(records.filter((r) => r.kind === 'search')),
    examples: [],
  };
  const example = (r: RequestRecord, why: string) => {
    if (f.examples.length < 12) f.examples.push(`${why}: ${r.kind} ${r.status || r.outcome} after ${r.end - r.start} ms ${r.detail ?? ''}`.trim());
  };
  for (const r of records) {
    const k = (f.requests[r.kind] ??= { sent: 0, ok: 0 });
    k.sent++;
    if (r.outcome === 'ok') k.ok++;
    if (r.outcome === 'hung') {
      f.hung++;
      example(r, 'hung');
    }
    if (r.outcome === 'net' && !inOutage(r, outages)) {
      f.unexpectedNet++;
      example(r, 'no answer outside an outage');
    }
    if (r.outcome !== 'ok') f.errorStatuses[`${r.kind} ${r.status || r.outcome}`] = (f.errorStatuses[`${r.kind} ${r.status || r.outcome}`] ?? 0) + 1;
    if (r.outcome !== 'http') continue;
    if (!r.specBody) {
      f.badBodies++;
      example(r, 'error body not {code, message}');
    }
    if (r.status >= 500) {
      if (inOutage(r, outages)) f.outage5xx++;
      else {
        f.unexpected5xx++;
        example(r, `5xx outside an outage${nearestOutage(r, outages)}`);
      }
    } else if (r.status >= 400) {
      f.unexpected4xx++;
      example(r, '4xx to a valid request');
    }
  }
  for (const [kind, k] of Object.entries(f.requests)) {
    const ms = records.filter((r) => r.kind === kind).map((r) => r.end - r.start).sort((a, b) => a - b);
    Object.assign(k, { p50Ms: ms[Math.floor(ms.length / 2)], p99Ms: ms[Math.floor(ms.length * 0.99)], maxMs: ms[ms.length - 1] });
  }
  return f;
}

/** Where a request stood against the closest outage of any kind: the first thing to know about a 5xx outside one. */
function nearestOutage(r: RequestRecord, outages: Outage[]): string {
  let best: { o: Outage; d: number } | null = null;
  for (const o of outages) {
    const d = r.start > o.to ? r.start - o.to : o.from - r.start;
    if (!best || Math.abs(d) < Math.abs(best.d)) best = { o, d };
  }
  if (!best) return '';
  return r.start > best.o.to
    ? ` (started ${best.d} ms after "${best.o.what}" ended)`
    : r.start < best.o.from ? ` (started ${best.d} ms before "${best.o.what}")` : ` (during "${best.o.what}", which does not cover ${r.kind})`;
}

/** Longest time from the start of a failed request to the start of the next successful one sent after it. */
function longestGap(records: RequestRecord[]): number {
  const sorted = [...records].sort((a, b) => a.start - b.start);
  let longest = 0;
  let failingSince: number | null = null;
  for (const r of sorted) {
    if (r.outcome !== 'ok') failingSince ??= r.start;
    else if (failingSince !== null) {
      longest = Math.max(longest, r.start - failingSince);
      failingSince = null;
    }
  }
  if (failingSince !== null && sorted.length) longest = Math.max(longest, sorted[sorted.length - 1].end - failingSince);
  return longest;
}

export interface ProcessFigures {
  kills: Partial<Record<ProcessKind, { kills: number; survived: number }>>;
  crashes: { process: string; exit: string; lastLines: string[] }[];
  /** Processes not serving once the scenario's faults were over (after up to 60 s): goal none. */
  down: string[];
}

/** The difference of process statistics over a scenario. */
export function processFigures(before: Map<string, ProcessStats>, after: { name: string; kind: ProcessKind; stats: ProcessStats; up: boolean }[]): ProcessFigures {
  const out: ProcessFigures = { kills: {}, crashes: [], down: [] };
  for (const p of after) {
    const b = before.get(p.name)!;
    const kills = p.stats.kills - b.kills;
    if (kills) out.kills[p.kind] = { kills, survived: p.stats.survived - b.survived };
    for (const c of p.stats.crashes.slice(b.crashes.length)) out.crashes.push({ process: p.name, exit: c.exit, lastLines: c.lastLines });
    if (!p.up) out.down.push(p.name);
  }
  return out;
}

export interface ScenarioRow {
  scenario: string;
  about: string;
  skipped: string | null;
  seconds: number;
  load: { newDocs: number; updates: number; deletes: number; rejectedInBatch: number } | null;
  health: HealthFigures | null;
  outages: { what: string; ms: number }[];
  requests: RequestFigures | null;
  processes: ProcessFigures | null;
  verdict: Verdict | null;
  /** Every invariant held. */
  passed: boolean;
  /** Last lines (warn and above) of each process, when an invariant failed. */
  logs?: Record<string, string[]>;
  failures: string[];
}

/** The invariants of a scenario, each failed one named. */
export function failuresOf(row: Omit<ScenarioRow, 'passed' | 'failures'>): string[] {
  const f: string[] = [];
  const v = row.verdict;
  const r = row.requests;
  const p = row.processes;
  if (v) {
    if (v.settledMs === null) f.push(`index never settled (${JSON.stringify(v.status)})`);
    for (const [name, pr] of Object.entries({ lost: v.lost, 'wrong version': v.wrongVersion, resurrected: v.resurrected, phantom: v.phantom, 'not searchable': v.notSearchable, 'old version searchable': v.staleSearchable, duplicated: v.duplicated })) {
      if (pr.count) f.push(`${pr.count} ${name}: ${pr.examples.slice(0, 3).join(', ')}`);
    }
    if (v.failedDocuments) f.push(`${v.failedDocuments} documents failed indexing`);
  }
  if (r) {
    // The first example of each kind goes with the count: a failure in CI must say which request it was.
    const first = (why: string) => {
      const e = r.examples.find((x) => x.startsWith(why));
      return e ? `; first: ${e}` : '';
    };
    if (r.hung) f.push(`${r.hung} requests hung${first('hung')}`);
    if (r.unexpected5xx) f.push(`${r.unexpected5xx} 5xx outside an outage${first('5xx outside an outage')}`);
    if (r.badBodies) f.push(`${r.badBodies} error bodies not {code, message}${first('error body not {code, message}')}`);
    if (r.unexpected4xx) f.push(`${r.unexpected4xx} 4xx to valid requests${first('4xx to a valid request')}`);
    if (r.unexpectedNet) f.push(`${r.unexpectedNet} requests without an answer while the API was up${first('no answer outside an outage')}`);
  }
  if (p) {
    if (p.down.length) f.push(`down at the end: ${p.down.join(', ')}`);
    for (const c of p.crashes) f.push(`${c.process} crashed (${c.exit})`);
    for (const [kind, k] of Object.entries(p.kills)) if (k.survived < k.kills) f.push(`${kind}: ${k.kills - k.survived} kills not survived`);
  }
  return f;
}

const pad = (s: string | number, n: number) => String(s).padStart(n);

/** One line per scenario, then the failures under it. */
export function printTable(rows: ScenarioRow[], say: (m: string) => void): void {
  say(`${'scenario'.padEnd(15)} ${pad('ok', 4)} ${pad('promised', 9)} ${pad('durable', 8)} ${pad('search ok', 10)} ${pad('lost', 5)} ${pad('stale', 6)} ${pad('dup', 4)} ${pad('kills', 6)} ${pad('crash', 6)} ${pad('push gap', 9)} ${pad('search gap', 11)} ${pad('hung', 5)} ${pad('5xx out', 8)} ${pad('5xx in', 7)} ${pad('settle', 7)} ${pad('healthz max', 12)} ${pad('load', 10)}`);
  for (const row of rows) {
    if (row.skipped) {
      say(`${row.scenario.padEnd(15)} skipped: ${row.skipped}`);
      continue;
    }
    const v = row.verdict!;
    const r = row.requests!;
    const p = row.processes!;
    const kills = Object.values(p.kills).reduce((a, k) => ({ kills: a.kills + k!.kills, survived: a.survived + k!.survived }), { kills: 0, survived: 0 });
    say([
      row.scenario.padEnd(15), pad(row.passed ? 'yes' : 'NO', 4), pad(v.promised, 9), pad(v.durable, 8),
      pad(`${v.searchable}/${v.searchChecked}`, 10), pad(v.lost.count, 5), pad(v.staleSearchable.count + v.wrongVersion.count, 6),
      pad(v.duplicated.count, 4), pad(`${kills.survived}/${kills.kills}`, 6), pad(p.crashes.length, 6),
      pad(`${(r.longestPushGapMs / 1000).toFixed(1)} s`, 9), pad(`${(r.longestSearchGapMs / 1000).toFixed(1)} s`, 11), pad(r.hung, 5),
      pad(r.unexpected5xx, 8), pad(r.outage5xx, 7), pad(v.settledMs === null ? 'never' : `${(v.settledMs / 1000).toFixed(1)} s`, 7),
      pad(row.health ? `${(row.health.maxMs / 1000).toFixed(1)} s` : '', 12), pad(row.health ? row.health.loadAvg.join('-') : '', 10),
    ].join(' '));
    for (const f of row.failures) say(`    ! ${f}`);
    if (v.searchHealedMs !== undefined) {
      const late = v.lateWrites?.length ? `; ${v.lateWrites.length} of those documents changed version after the listing (a hung write committed late): ${v.lateWrites.slice(0, 5).join(', ')}` : '';
      say(`    search agreed with the stored versions ${v.searchHealedMs === null ? 'not within 60 s' : `${(v.searchHealedMs / 1000).toFixed(1)} s later`}${late}`);
    }
  }
}
