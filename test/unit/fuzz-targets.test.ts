// The short mode of `npm run fuzz` for the other in-process targets: the boosting parser, the HTML
// sectioner and feedback_data tokens (generators and checks in scripts/fuzz/, shared with the script).
import { describe, expect, it } from 'vitest';
import { runPure } from '../../scripts/fuzz/runner.js';
import { targetNamed, type PureTarget } from '../../scripts/fuzz/targets.js';

const SEED = Number(process.env.FUZZ_SEED ?? 20261124);
const COUNTS: Record<string, number> = { qf: 50_000, html: 5_000, feedback: 20_000 };
/** Each accepted outcome the generator must reach, so a generator that only produces garbage fails. */
const REACHED: Record<string, string[]> = { qf: ['parsed', 'BoostingSyntaxError'], html: ['sections', 'empty'], feedback: ['verified', 'refused'] };

describe('fuzzing in process', () => {
  for (const name of Object.keys(COUNTS)) {
    it(`${name}: ${COUNTS[name]} inputs, no crash (seed ${SEED})`, { timeout: 120_000 }, () => {
      const r = runPure(targetNamed(name) as PureTarget, { seed: SEED, count: COUNTS[name] });
      console.log(`fuzz ${name}: ${r.inputs} inputs in ${r.seconds} s (${JSON.stringify(r.outcomes)})`);
      expect(r.failures).toEqual([]);
      expect(r.inputs).toBe(COUNTS[name]);
      for (const label of REACHED[name]) expect(r.outcomes[label], label).toBeGreaterThan(0);
    });
  }

  it('the feedback check catches a token that verifies to another payload', () => {
    const feedback = targetNamed('feedback') as PureTarget<{ payload: object; token: string; sent: string }>;
    const a = feedback.input(() => 0.05, 0);
    const b = feedback.input(() => 0.95, 1);
    expect(feedback.check({ ...a, sent: b.token })).toMatchObject({ fail: 'crash' });
    expect(feedback.check({ ...a, sent: a.token })).toEqual({ label: 'verified' });
  });
});
