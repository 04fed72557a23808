import { describe, expect, it } from 'vitest';
import { FeedbackDataError, FeedbackSigner, type FeedbackPayload } from '../../shared/feedback/feedback-token.js';
import { createAnalyzer } from '../../shared/search/analyzer/analyzer.js';
import { applyClickBoosts, clickBoost } from '../../shared/search/hybrid/click-boost.js';
import { rankFused, reciprocalRankFusion, weightedFusion } from '../../shared/search/hybrid/fuse.js';
import { matchInstantAnswers } from '../../shared/search/hybrid/match-instant-answers.js';
import { normalizeQuery } from '../../shared/search/query/normalize-query.js';
import { LINE_BREAK, paragraphHtml } from '../../shared/search/render/paragraph-html.js';

const leg = (...keys: string[]) => keys.map((key, i) => ({ key, score: 10 - i }));

describe('fusion', () => {
  it('reciprocal rank: orders only, equal weights by default, optional leg weights', () => {
    const fused = reciprocalRankFusion([leg('a', 'b', 'c'), leg('c', 'b')]);
    expect(fused.get('b')).toBeCloseTo(1 / 62 + 1 / 62);
    expect(rankFused(fused).map((r) => r.key)).toEqual(['c', 'b', 'a']);
    expect(rankFused(reciprocalRankFusion([leg('a', 'b', 'c'), leg('c', 'b')], [1, 0])).map((r) => r.key)).toEqual(['a', 'b', 'c']);
  });

  it('weighted: min-max normalises each leg, then mixes with the weights; an empty leg changes nothing', () => {
    const fused = weightedFusion([[{ key: 'a', score: 20 }, { key: 'b', score: 10 }], [{ key: 'b', score: 0.9 }, { key: 'a', score: 0.1 }]], [0.7, 0.3]);
    expect(fused.get('a')).toBeCloseTo(0.7);
    expect(fused.get('b')).toBeCloseTo(0.3);
    expect(rankFused(weightedFusion([leg('x', 'y'), []], [0.7, 0.3])).map((r) => r.key)).toEqual(['x', 'y']);
  });
});

describe('click boosts', () => {
  it('ignore the first session, grow with distinct sessions and saturate', () => {
    expect(clickBoost(0)).toBe(0);
    expect(clickBoost(1)).toBe(0);
    expect(clickBoost(4)).toBeCloseTo(0.25);
    expect(clickBoost(1000)).toBeLessThan(0.5);
  });

  it('re-rank relative to the best score, stable otherwise', () => {
    const ranked = ['a', 'b', 'c', 'd'].map((target, i) => ({ target, score: 1 - i * 0.05 }));
    expect(applyClickBoosts(ranked, new Map([['d', 1]])).map((r) => r.target)).toEqual(['a', 'b', 'c', 'd']);
    expect(applyClickBoosts(ranked, new Map([['d', 4]])).map((r) => r.target)).toEqual(['d', 'a', 'b', 'c']);
  });
});

describe('instant answer matching', () => {
  const en = createAnalyzer('en');
  const answers = [
    { id: 'hours', title: 'Our opening hours', keywords: ['open'] },
    { id: 'refund', title: 'Money back', keywords: ['refund', 'return an order'] },
  ];
  it('matches by keyword or title terms, best coverage first', () => {
    expect(matchInstantAnswers(en, 'How do I get a refund?', answers).map((a) => a.id)).toEqual(['refund']);
    expect(matchInstantAnswers(en, 'I want to return my order', answers).map((a) => a.id)).toEqual(['refund']);
    expect(matchInstantAnswers(en, 'opening hours', answers).map((a) => a.id)).toEqual(['hours']);
    expect(matchInstantAnswers(en, 'hours', answers)).toEqual([]);
    expect(matchInstantAnswers(en, 'the', answers)).toEqual([]);
  });
});

describe('paragraph content', () => {
  it('escapes markup and replaces every kind of line break', () => {
    expect(paragraphHtml(`a<b>&"'\r\nc\rd\ne\u2028f`)).toBe(`<p>a&lt;b&gt;&amp;&quot;&#39;${LINE_BREAK}c${LINE_BREAK}d${LINE_BREAK}e${LINE_BREAK}f</p>`);
  });
});

describe('query normalization', () => {
  it('folds case, compatibility forms and whitespace', () => {
    expect(normalizeQuery('  How to\tＩnstall  Python? ')).toBe('how to install python?');
  });
});

describe('feedback_data', () => {
  const signer = new FeedbackSigner('test-secret-0123456789');
  const payload: FeedbackPayload = { e: 'ev', c: 'cfg', v: 'ui', p: 3, i: 'kb', d: 'doc', s: 12, q: 'refund', h: 'hash' };
  it('round-trips and rejects any alteration', () => {
    const token = signer.sign(payload);
    expect(signer.verify(token)).toEqual(payload);
    const raw = Buffer.from(token, 'base64');
    for (let bit = 0; bit < raw.length * 8; bit += 7) {
      const flipped = Buffer.from(raw);
      flipped[bit >> 3] ^= 1 << (bit & 7);
      expect(() => signer.verify(flipped.toString('base64'))).toThrow(FeedbackDataError);
    }
    for (const bad of [token.slice(0, -1), token.slice(0, 20), token.toLowerCase(), `${token}AAAA`, new FeedbackSigner('another-secret-0123456').sign(payload)]) {
      expect(() => signer.verify(bad)).toThrow(FeedbackDataError);
    }
    expect(FeedbackSigner.claimsPreview(signer.sign({ ...payload, x: 1 }))).toBe(true);
    expect(FeedbackSigner.claimsPreview(token)).toBe(false);
  });
});
