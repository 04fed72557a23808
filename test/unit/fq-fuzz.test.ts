// Throws random and mutated filters at the parser: each must end in a tree or a FilterSyntaxError with
// a message and a position inside the input, never another exception, a hang or a stack overflow.
// The short mode of `npm run fuzz -- --targets fq` (same generator and check, scripts/fuzz/): input i of
// the seed replays alone, so a failure names its seed and input number.
import { describe, expect, it } from 'vitest';
import { runPure } from '../../scripts/fuzz/runner.js';
import { targetNamed, type PureTarget } from '../../scripts/fuzz/targets.js';
import { parseFilter } from '../../shared/search/query/fq-parser.js';

const SEED = Number(process.env.FUZZ_SEED ?? 0x5eed_f00d);
const ITERATIONS = 120_000;
const fq = targetNamed('fq') as PureTarget<string>;

describe('fq parser fuzzing', () => {
  it(`survives ${ITERATIONS} random and mutated filters (seed ${SEED})`, () => {
    const r = runPure(fq, { seed: SEED, count: ITERATIONS });
    console.log(`fuzz fq: ${r.inputs} inputs in ${r.seconds} s (${JSON.stringify(r.outcomes)}), slowest #${r.slowest.index} ${r.slowest.ms} ms`);
    expect(r.failures).toEqual([]);
    expect(r.inputs).toBe(ITERATIONS);
    expect(r.outcomes.parsed).toBeGreaterThan(0);
    expect(r.outcomes.FilterSyntaxError).toBeGreaterThan(0);
  });

  it('refuses deep nesting with a FilterSyntaxError instead of overflowing the stack', () => {
    for (const input of ['('.repeat(100_000), `${'('.repeat(5000)}a${')'.repeat(5000)}`, 'a:('.repeat(20_000)]) {
      expect(() => parseFilter(input)).toThrow(/nested groups/);
    }
    expect(() => parseFilter(`${'('.repeat(100)}a${')'.repeat(100)}`)).not.toThrow();
  });

  // A quadratic parser takes minutes over these; a linear one well under the timeout.
  it('stays linear on long inputs', { timeout: 30_000 }, () => {
    const inputs = [
      'a '.repeat(100_000), 'a AND '.repeat(50_000) + 'b', '"'.repeat(100_001), '\\a'.repeat(100_000),
      `[${'x'.repeat(200_000)} TO *]`, '-a '.repeat(60_000), `${'f:[a TO b] OR '.repeat(20_000)}c`,
    ];
    for (const input of inputs) expect(fq.check(input)).not.toHaveProperty('fail');
  });
});
