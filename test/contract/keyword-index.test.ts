// The keyword leg on Qdrant (QUARRY_KEYWORD_INDEX=qdrant) against the embedded engine: the same
// sections, the same queries and filters, the same documents in the same order with the same scores.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IndexRecord } from '../../shared/indexes/index-schema.js';
import { IndexState } from '../../shared/search/engine/index-state.js';
import { documentUnitTerms, PAGE_ONCE_FIELDS } from '../../shared/search/engine/unit-terms.js';
import { compileFilter } from '../../shared/search/filter/compile-filter.js';
import { parseFilter } from '../../shared/search/query/fq-parser.js';
import type { FieldBoost } from '../../shared/search/query/qf-parser.js';
import { scoreDisMaxDense } from '../../shared/search/rank/dismax.js';
import { topUnits } from '../../shared/search/rank/top-units.js';
import { pageScores } from '../../shared/search/rank/page-scores.js';
import { KeywordFilterUnsupported, type KeywordUnit } from '../../shared/storage/ports/keyword-index.js';
import { createQdrantKeywordIndex, type QdrantKeywordIndex } from '../../shared/storage/qdrant/qdrant-keyword-index.js';
import { prng } from '../helpers/prng.js';
import { startQdrantStandIn, type QdrantStandIn } from '../helpers/qdrant-stand-in.js';

const index = {
  id: 1, uid: 'kw', languageCode: 'en', updatedAt: 1,
  fields: {
    title: { type: 'text' }, body: { type: 'text' }, tag: { type: 'string', multi_valued: true }, n: { type: 'int' },
    price: { type: 'float' }, at: { type: 'date' }, flag: { type: 'boolean' },
  },
} as unknown as IndexRecord;

const WORDS = ['cell', 'protein', 'cancer', 'gene', 'mouse', 'blood', 'brain', 'heart', 'virus', 'drug', 'dose', 'risk', 'trial',
  'patient', 'tumour', 'growth', 'signal', 'immune', 'liver', 'kidney', 'insulin', 'obesity', 'memory', 'sleep', 'vitamin',
  'bacteria', 'infection', 'therapy', 'receptor', 'enzyme', 'pathway', 'mutation', 'neuron', 'muscle', 'bone', 'skin', 'lung'];

interface Doc { uid: string; title: string; sections: string[]; fields: Record<string, unknown> }

function corpus(n: number, seed: number): Doc[] {
  const rnd = prng(seed);
  const word = () => WORDS[Math.floor(rnd() * rnd() * WORDS.length)];
  const words = (k: number) => Array.from({ length: k }, word).join(' ');
  return Array.from({ length: n }, (_, i) => ({
    uid: `d${String(i).padStart(4, '0')}`,
    title: words(2 + Math.floor(rnd() * 4)),
    sections: Array.from({ length: 1 + Math.floor(rnd() * 3) }, () => words(5 + Math.floor(rnd() * 40))),
    fields: {
      tag: ['a', 'b', 'c'].filter(() => rnd() < 0.4), n: Math.floor(rnd() * 20), price: Math.round(rnd() * 1000) / 10,
      at: new Date(Date.UTC(2024, 0, 1) + Math.floor(rnd() * 365) * 86_400_000).toISOString().slice(0, 10), flag: rnd() < 0.5,
    },
  }));
}

function embedded(docs: Doc[]): IndexState {
  const state = new IndexState(index);
  for (const d of docs) {
    const sections = d.sections.map((text, ord) => ({ id: ord, uid: d.uid, version: 1, ord, field: 'body', title: '', anchor: null, text, vector: null, vectorModel: null }));
    state.setDocument(d.uid, sections, { title: d.title, ...d.fields });
  }
  return state;
}

function units(docs: Doc[], state: IndexState): KeywordUnit[] {
  return docs.flatMap((d) => {
    const terms = documentUnitTerms(state.analyzer, index, d.sections.map((text) => ({ field: 'body', title: '', text })), { title: d.title, ...d.fields });
    return terms.map((t, ord) => ({ uid: d.uid, version: 1, ord, terms: t, fields: d.fields as KeywordUnit['fields'] }));
  });
}

/** What the embedded engine ranks: every unit scored, the best per document, documents by score then uid. */
function embeddedTop(state: IndexState, query: string, fields: FieldBoost[], tie: number, filter: string, limit: number) {
  const terms = state.analyzer.analyze(query);
  const node = parseFilter(filter);
  const pred = node.kind === 'all' ? null : compileFilter(node, { fields: index.fields, analyzer: state.analyzer, now: new Date() });
  const allow = pred ? (u: number) => pred({ value: (f) => state.fieldValue(state.uidOf(u), f), terms: (f) => state.termsOf(state.uidOf(u), f) }) : undefined;
  const { units: matched, scores } = scoreDisMaxDense(state.inverted, terms, { fields, tie, allow });
  const best = new Map<string, number>();
  for (const u of topUnits(matched, scores, matched.length)) if (!best.has(state.uidOf(u))) best.set(state.uidOf(u), scores[u]);
  return [...best].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, limit);
}

const CASES: [string, FieldBoost[], number, string, number][] = [
  ['cancer cell', [{ field: 'body', boost: 1 }], 0, '', 10],
  ['protein gene mouse', [{ field: 'title', boost: 2 }, { field: 'body', boost: 1 }], 0, '', 10],
  ['protein gene mouse', [{ field: 'title', boost: 2 }, { field: 'body', boost: 1 }], 0.3, '', 10],
  ['blood blood heart risk', [{ field: 'title', boost: 1.5 }, { field: 'body', boost: 1 }], 0.1, '', 25],
  ['lung', [{ field: 'title', boost: 1 }, { field: 'body', boost: 1 }], 1, '', 5],
  ['vitamin sleep memory', [{ field: 'title', boost: 2 }, { field: 'body', boost: 1 }], 0, 'tag:a', 10],
  ['vitamin sleep memory', [{ field: 'title', boost: 2 }, { field: 'body', boost: 1 }], 0, 'n:[3 TO 9} AND -tag:b', 10],
  ['cell', [{ field: 'body', boost: 1 }], 0, 'price:[10.5 TO 50] OR flag:true', 10],
  ['cell drug', [{ field: 'body', boost: 1 }], 0, 'at:[2024-03-01 TO 2024-06-30]', 10],
  ['cell drug', [{ field: 'body', boost: 1 }], 0, 'at:2024-02-03 OR tag:*', 10],
  ['cell drug', [{ field: 'body', boost: 1 }], 0, '-tag:* AND n:7', 10],
];

interface Target {
  url: string;
  apiKey?: string;
  /** Collections are named `<prefix><index uid>`: a real Qdrant gets a prefix of its own per run. */
  prefix: string;
  /** Operations served so far (the stand-in only). */
  calls?: () => { operation: string }[];
  close(): Promise<void>;
}

/**
 * The contract: against the stand-in always, against a real Qdrant when QDRANT_URL is set (`npm run
 * qdrant:contract`). Scores agree to 9 decimals with the stand-in (doubles throughout), to 4 with Qdrant,
 * which stores sparse values as 32-bit floats.
 */
function keywordContract(name: string, digits: number, start: () => Promise<Target>) {
  describe(name, () => {
    let target: Target;
    let keyword: QdrantKeywordIndex;
    const docs = corpus(400, 7);
    const state = embedded(docs);
    beforeAll(async () => {
      target = await start();
      keyword = createQdrantKeywordIndex({ url: target.url, apiKey: target.apiKey, collectionPrefix: target.prefix });
      await keyword.upsert('kw', index.fields, units(docs, state));
    });
    afterAll(async () => {
      for (const uid of ['kw', 'wide', 'skew']) await keyword?.dropIndex(uid).catch(() => {});
      await target?.close();
    });

    const search = (query: string, fields: FieldBoost[], tie: number, filter: string, limit: number) =>
      keyword.search('kw', { fields, terms: state.analyzer.analyze(query), tie, filter: filter ? parseFilter(filter) : null, schema: index.fields, now: new Date(), limit });

    for (const [query, fields, tie, filter, limit] of CASES) {
      it(`"${query}" over ${fields.map((f) => `${f.field}^${f.boost}`).join(' ')}, tie ${tie}${filter ? `, fq ${filter}` : ''}: the same documents and scores`, async () => {
        const want = embeddedTop(state, query, fields, tie, filter, limit);
        const got = await search(query, fields, tie, filter, limit);
        expect(want.length).toBeGreaterThan(0);
        expect(got.map((h) => h.uid)).toEqual(want.map(([uid]) => uid));
        got.forEach((h, i) => expect(h.score).toBeCloseTo(want[i][1], digits));
      });
    }

    it('ranks sections, several of a document, as the embedded engine does', async () => {
      const fields = [{ field: 'title', boost: 1 }, { field: 'body', boost: 1 }];
      const terms = state.analyzer.analyze('protein cancer cell');
      const { units: matched, scores } = scoreDisMaxDense(state.inverted, terms, { fields });
      const want = topUnits(matched, scores, 30).map((u) => [state.uidOf(u), state.unitRef(u).ord, scores[u]] as const);
      const got = await keyword.searchSections('kw', { fields, terms, tie: 0, filter: null, schema: index.fields, now: new Date(), limit: 30 });
      expect(new Set(got.map((h) => h.uid)).size).toBeLessThan(got.length);
      expect(got.map((h) => h.score)).toEqual(want.map(([, , score]) => expect.closeTo(score, digits)));
      // Sections of equal score may come in another order; the set at each score is the same.
      const key = (uid: string, ord: number, score: number) => `${score.toFixed(digits - 2)} ${uid} ${ord}`;
      expect(got.map((h) => key(h.uid, h.ord, h.score)).sort()).toEqual(want.map(([uid, ord, score]) => key(uid, ord, score)).sort());
    });

    it('scores whole pages as the embedded engine does (the search interface\'s page evidence)', async () => {
      const fields = [{ field: 'title', boost: 1 }, { field: 'body', boost: 1 }];
      const terms = state.analyzer.analyze('blood heart risk risk');
      const wanted = docs.slice(0, 120).map((d) => ({ doc: d.uid, units: state.unitsOf(d.uid) }));
      const want = pageScores(state.inverted, state.pages, terms, fields.map((f) => f.field), PAGE_ONCE_FIELDS, wanted);
      const got = await keyword.pageScores('kw', { fields, terms, docs: docs.slice(1, 120).map((d) => ({ uid: d.uid, version: 1 })) });
      want.delete(docs[0].uid); // replaced by the test below in the stand-in's copy: left out here
      expect(want.size).toBeGreaterThan(10);
      expect([...got.keys()].sort()).toEqual([...want.keys()].sort());
      for (const [uid, score] of want) expect(got.get(uid)).toBeCloseTo(score, digits);
    });

    it('asks again for more candidates when the first ones cannot prove the top', async () => {
      // 60 documents strong in the title alone, 60 strong in the body alone, and one middling in both:
      // the best overall, but outside each field's first 50 candidates.
      const wide: Doc[] = [
        ...Array.from({ length: 60 }, (_, i) => ({ uid: `t${i}`, title: 'alpha alpha alpha', sections: ['delta'], fields: {} })),
        ...Array.from({ length: 60 }, (_, i) => ({ uid: `b${i}`, title: 'delta', sections: ['beta beta beta'], fields: {} })),
        { uid: 'x', title: 'alpha gamma gamma', sections: ['beta gamma gamma gamma'], fields: {} },
      ];
      const wideState = embedded(wide);
      await keyword.upsert('wide', index.fields, units(wide, wideState));
      const fields = [{ field: 'title', boost: 1 }, { field: 'body', boost: 1 }];
      const want = embeddedTop(wideState, 'alpha beta', fields, 0, '', 1);
      expect(want[0][0]).toBe('x');
      const before = target.calls?.().length ?? 0;
      const got = await keyword.search('wide', { fields, terms: wideState.analyzer.analyze('alpha beta'), tie: 0, filter: null, schema: index.fields, now: new Date(), limit: 1 });
      expect(got.map((h) => h.uid)).toEqual(['x']);
      expect(got[0].score).toBeCloseTo(want[0][1], digits);
      // Two tries of two batched requests each (candidates, then their scores).
      if (target.calls) expect(target.calls().slice(before).filter((c) => c.operation === 'query_batch_points')).toHaveLength(4);
    });

    it('ranks by the first write\'s lengths until recalibrated, then as the embedded engine does (writers pick up the new averages)', async () => {
      // An index whose first write was one two-word test document, then the real corpus.
      const tiny: Doc = { uid: 'a-test', title: 'test', sections: ['hello world'], fields: {} };
      const later = corpus(150, 11);
      const extra: Doc = { uid: 'z-late', title: 'cancer', sections: ['cancer cell cell protein gene'], fields: {} };
      const first = createQdrantKeywordIndex({ url: target.url, apiKey: target.apiKey, collectionPrefix: target.prefix, metaRefreshMs: 20 });
      const other = createQdrantKeywordIndex({ url: target.url, apiKey: target.apiKey, collectionPrefix: target.prefix, metaRefreshMs: 20 });
      await first.upsert('skew', index.fields, units([tiny], state));
      await other.upsert('skew', index.fields, units(later, state));
      const fields = [{ field: 'title', boost: 2 }, { field: 'body', boost: 1 }];
      const terms = state.analyzer.analyze('cancer cell protein');
      const ask = () => first.search('skew', { fields, terms, tie: 0.1, filter: null, schema: index.fields, now: new Date(), limit: 10 });
      const before = await ask();
      const wantBefore = embeddedTop(embedded([tiny, ...later]), 'cancer cell protein', fields, 0.1, '', 10);
      expect(before.map((h) => h.score)).not.toEqual(wantBefore.map(([, score]) => expect.closeTo(score, 2)));

      const all = [tiny, ...later];
      async function* read() {
        for (let i = 0; i < all.length; i += 40) yield units(all.slice(i, i + 40), state);
      }
      const r = await first.recalibrate('skew', index.fields, read);
      expect(r?.sections).toBe(units(all, state).length);
      expect(r!.before.body).toBe(2);
      expect(r!.after.body).toBeGreaterThan(10);
      const want = embeddedTop(embedded(all), 'cancer cell protein', fields, 0.1, '', 10);
      const got = await ask();
      expect(got.map((h) => h.uid)).toEqual(want.map(([uid]) => uid));
      got.forEach((h, i) => expect(h.score).toBeCloseTo(want[i][1], digits));
      // The other writer read the first calibration; once its copy is older than metaRefreshMs it writes with
      // the new one: the same score as the recalibrating writer gives the same document.
      await new Promise((resolve) => setTimeout(resolve, 30));
      await other.upsert('skew', index.fields, units([extra], state));
      const late = async () => (await ask()).find((h) => h.uid === extra.uid)?.score;
      const byOther = await late();
      await first.upsert('skew', index.fields, units([extra], state));
      expect(byOther).toBeDefined();
      expect(byOther).toBeCloseTo((await late())!, digits);
      expect(await first.recalibrate('never', index.fields, read)).toBeNull();
    });

    it('refuses, naming the construct, what Qdrant cannot evaluate exactly', async () => {
      for (const [filter, construct] of [['tag:a*', 'a wildcard on string field'], ['body:cell', 'a filter on text field'], ['tag:[a TO b]', 'a range on string field'], ['tag:ab~1', 'a fuzzy term']]) {
        const err = await search('cell', [{ field: 'body', boost: 1 }], 0, filter, 10).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(KeywordFilterUnsupported);
        expect((err as Error).message).toContain(construct);
        expect((err as Error).message).toContain('QUARRY_KEYWORD_INDEX=qdrant');
      }
    });

    it('follows replaced and deleted versions, and finds nothing in an index never written', async () => {
      const d = docs[0];
      const terms = documentUnitTerms(state.analyzer, index, [{ field: 'body', title: '', text: 'zebra zebra giraffe' }], { title: 'zoo', ...d.fields });
      await keyword.upsert('kw', index.fields, [{ uid: d.uid, version: 2, ord: 0, terms: terms[0], fields: d.fields as KeywordUnit['fields'] }]);
      await keyword.deleteOlder('kw', [{ uid: d.uid, version: 2 }]);
      const zebra = await search('zebra', [{ field: 'body', boost: 1 }], 0, '', 10);
      expect(zebra.map((h) => [h.uid, h.version])).toEqual([[d.uid, 2]]);
      expect((await search(d.title, [{ field: 'title', boost: 1 }], 0, '', 400)).some((h) => h.uid === d.uid && h.version === 1)).toBe(false);
      await keyword.deleteVersions('kw', [{ uid: d.uid, version: 2 }]);
      expect(await search('zebra', [{ field: 'body', boost: 1 }], 0, '', 10)).toEqual([]);
      expect(await keyword.search('never', { fields: [{ field: 'body', boost: 1 }], terms: ['cell'], tie: 0, filter: null, schema: index.fields, now: new Date(), limit: 10 })).toEqual([]);
    });

    it('lists the document versions it holds, page by page in uid order, as the reconciler walks them', async () => {
      const d = docs[1];
      const terms = documentUnitTerms(state.analyzer, index, [{ field: 'body', title: '', text: 'okapi' }], { title: 'zoo', ...d.fields });
      await keyword.upsert('kw', index.fields, [{ uid: d.uid, version: 5, ord: 0, terms: terms[0], fields: d.fields as KeywordUnit['fields'] }]);
      const seen: { uid: string; version: number }[] = [];
      let after: string | null = null;
      for (;;) {
        const page: { uid: string; version: number }[] = await keyword.versions('kw', after, 37);
        seen.push(...page);
        if (page.length < 37) break;
        after = page[page.length - 1].uid;
      }
      // docs[0] left the index in the test before.
      const expected = docs.slice(1).flatMap((x) => (x.uid === d.uid ? [{ uid: x.uid, version: 1 }, { uid: x.uid, version: 5 }] : [{ uid: x.uid, version: 1 }]));
      expect(seen).toEqual(expected);
      await keyword.deleteVersions('kw', [{ uid: d.uid, version: 5 }]);
      expect((await keyword.versions('kw', null, 1000)).filter((r) => r.uid === d.uid)).toEqual([{ uid: d.uid, version: 1 }]);
      expect(await keyword.versions('never', null, 10)).toEqual([]);
    });
  });
}

keywordContract('QdrantKeywordIndex (stand-in) against the embedded engine', 9, async () => {
  const standIn: QdrantStandIn = await startQdrantStandIn();
  return {
    url: standIn.url, prefix: 'quarry_kw_', calls: () => standIn.calls,
    async close() {
      await standIn.close();
      expect(standIn.violations).toEqual([]);
    },
  };
});

const realQdrant = process.env.QDRANT_URL;
describe.skipIf(!realQdrant)('against a real Qdrant', () => {
  keywordContract('QdrantKeywordIndex (a real Qdrant) against the embedded engine', 4, async () => ({
    url: realQdrant!, apiKey: process.env.QDRANT_API_KEY || undefined, prefix: `quarry_contract_${randomUUID().slice(0, 8)}_`, close: async () => {},
  }));
});
