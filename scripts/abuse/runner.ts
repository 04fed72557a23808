// Runs one attack while probe requests (GET /healthz and a normal widget search, from another client
// address) go to the same service, and judges it: every answer one the spec allows, each 4xx with
// {code, message}, every answer (attack or probe) with the security headers, every probe answered 200, and for attacks holding connections, probes answered while
// they still held them. The time against the attack's budget is measured and reported, not judged here.
import { performance } from 'node:perf_hooks';
import { ATTACKS, type Attack, type Limits } from './attacks.js';
import type { AbuseTarget } from './fixtures.js';
import { send, type Answer, type Sent } from './http.js';

const PROBE_CLIENT = { 'x-forwarded-for': '198.51.100.1' };
export const PROBES: { name: string; sent: (t: AbuseTarget) => Sent }[] = [
  { name: 'GET /healthz', sent: () => ({ method: 'GET', path: '/healthz', headers: PROBE_CLIENT }) },
  { name: 'GET /v1/ui/search', sent: (t) => ({ method: 'GET', path: `/v1/ui/search?uid=${t.uid}&session-id=probe&query=python+lists`, headers: PROBE_CLIENT }) },
];
/** A probe sent during an attack should be answered within this (reported; docs/security.md). */
export const PROBE_BUDGET_MS = 1000;

export interface AttackReport {
  id: string;
  group: string;
  route: string;
  input: string;
  finding?: string;
  budgetMs: number;
  ms: number;
  withinBudget: boolean;
  expect: number[];
  /** How many answers had each status (0: none). */
  statuses: Record<string, number>;
  /** The start of the first answer's body: which check refused it. */
  sample: string;
  probes: { sent: number; answered: number; answeredDuring: number; maxMs: number };
  /** What the spec does not allow; empty when the attack was handled. */
  problems: string[];
}

/**
 * What every response of the service carries, pages above all (issue 22: the queue dashboard could be framed):
 * no framing, no sniffing, a Referrer-Policy, and nothing naming the framework.
 */
export function securityHeaderProblems(a: Answer): string[] {
  const h = a.headers;
  if (!h) return [];
  const page = a.contentType.startsWith('text/html') ? 'HTML ' : '';
  const problems: string[] = [];
  if (!/(^|;)\s*frame-ancestors 'none'/.test(String(h['content-security-policy'] ?? ''))) problems.push('no CSP frame-ancestors \'none\'');
  if (h['x-frame-options'] !== 'DENY') problems.push(`X-Frame-Options ${h['x-frame-options']}`);
  if (h['x-content-type-options'] !== 'nosniff') problems.push(`X-Content-Type-Options ${h['x-content-type-options']}`);
  if (!h['referrer-policy']) problems.push('no Referrer-Policy');
  if (h['x-powered-by'] !== undefined) problems.push(`X-Powered-By ${h['x-powered-by']}`);
  return problems.length ? [`${page}${a.status} answer's headers: ${problems.join(', ')}`] : [];
}

function judge(attack: Attack, answers: Answer[]): string[] {
  const problems: string[] = [];
  for (const a of answers) {
    problems.push(...securityHeaderProblems(a));
    if (!attack.expect.includes(a.status)) problems.push(`answered ${a.status} (allowed: ${attack.expect.join(', ')}): ${a.body.slice(0, 200)}`);
    else if (a.status >= 400 && !a.unread) {
      let body: { code?: unknown; message?: unknown } | null = null;
      try {
        body = JSON.parse(a.body);
      } catch {}
      if (body?.code !== a.status || typeof body.message !== 'string' || !body.message) problems.push(`${a.status} without {code, message}: ${a.body.slice(0, 200)}`);
    }
    if (problems.length >= 3) break;
  }
  return problems;
}

export async function runAttack(attack: Attack, t: AbuseTarget, limits: Limits): Promise<AttackReport> {
  const probes = { sent: 0, answered: 0, answeredDuring: 0, maxMs: 0 };
  const problems: string[] = [];
  let attackEnd = Number.POSITIVE_INFINITY;
  const probeRound = async () => {
    await Promise.all(PROBES.map(async (p) => {
      probes.sent++;
      const a = await send(t.url, p.sent(t), 60_000);
      const headers = securityHeaderProblems(a);
      if (headers.length && problems.length < 5) problems.push(`probe ${p.name}: ${headers[0]}`);
      if (a.status !== 200) {
        if (problems.length < 5) problems.push(`probe ${p.name} answered ${a.status}: ${a.body.slice(0, 150)}`);
        return;
      }
      probes.answered++;
      probes.maxMs = Math.max(probes.maxMs, Math.round(a.ms));
      if (performance.now() < attackEnd) probes.answeredDuring++;
    }));
  };
  let done = false;
  const probing = (async () => {
    await new Promise((r) => setTimeout(r, 20)); // the attack's request goes out first
    while (!done) {
      await probeRound();
      await new Promise((r) => setTimeout(r, 100));
    }
  })();

  const t0 = performance.now();
  let answers: Answer[] = [];
  try {
    answers = await attack.run(t, limits);
  } catch (err) {
    problems.push(`the attack failed: ${(err as Error).message}`);
  }
  attackEnd = performance.now();
  const ms = Math.round(attackEnd - t0);
  done = true;
  await probing;
  await probeRound(); // and after it, the service still answers

  problems.unshift(...judge(attack, answers));
  if (attack.holds && probes.answeredDuring === 0) problems.push('no probe was answered while the attack held its connections');
  const statuses: Record<string, number> = {};
  for (const a of answers) statuses[a.status] = (statuses[a.status] ?? 0) + 1;
  const budgetMs = attack.budgetMs(limits);
  return {
    id: attack.id, group: attack.group, route: attack.route, input: attack.input, finding: attack.finding, budgetMs, ms, withinBudget: ms <= budgetMs,
    expect: attack.expect, statuses, sample: answers[0]?.body.slice(0, 200) ?? '', probes, problems,
  };
}

export function attacksIn(group: Attack['group']): Attack[] {
  return ATTACKS.filter((a) => a.group === group);
}
