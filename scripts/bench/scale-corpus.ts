import { stopWordsFor } from '../../shared/search/analyzer/stop-words.js';
import { loadSciFact, type CorpusDoc } from './corpus.js';
import { capacityDoc, capacityVocabulary } from './capacity-corpus.js';
import { prng } from './search-corpus.js';

/**
 * The documents and queries of `npm run bench:scale`: real SciFact abstracts (title + one paragraph
 * each). Past the corpus's size, documents repeat as copies whose uid, title and text carry a copy
 * number, so no section shares its hash (and so a reusable vector) with another.
 */
export function scaleCorpus(root: string, docs: number): CorpusDoc[] {
  const base = loadSciFact(root);
  if (docs <= base.length) return base.slice(0, docs);
  const out = base.slice();
  for (let i = base.length; i < docs; i++) {
    const d = base[i % base.length];
    const copy = Math.floor(i / base.length);
    const content = `${d.content.slice(0, -4)} (copy ${copy})</p>`;
    out.push({ id: `${d.id}-c${copy}`, title: `${d.title} (copy ${copy})`, content, contentJson: JSON.stringify(content) });
  }
  return out;
}

/**
 * `--corpus synthetic`: bench:capacity's documents (SciFact's shape in a Zipf vocabulary of English words),
 * none a copy of another. Past 5,183 documents the SciFact corpus is copies of the same abstracts, whose
 * tied scores could make a search look costlier than a real site's (docs/scale-out.md measures both).
 */
export function syntheticScaleCorpus(docs: number): CorpusDoc[] {
  const v = capacityVocabulary();
  return Array.from({ length: docs }, (_, i) => {
    const d = capacityDoc(v, i);
    return { id: d.uid, title: d.title, content: d.content, contentJson: JSON.stringify(d.content) };
  });
}

/** Batch request bodies for POST /v2/indexes/{uid}/documents, built once. */
export function batchBodies(corpus: CorpusDoc[], batchSize: number): { body: string; count: number }[] {
  const out: { body: string; count: number }[] = [];
  for (let i = 0; i < corpus.length; i += batchSize) {
    const b = corpus.slice(i, i + batchSize);
    const docs = b.map((d) => `{"uid":${JSON.stringify(d.id)},"title":${JSON.stringify(d.title)},"content":${d.contentJson}}`);
    out.push({ body: `{"documents":[${docs.join(',')}]}`, count: b.length });
  }
  return out;
}

/**
 * `n` queries of two words drawn from one document title each (lower-case letters, 3+ characters,
 * no English stop word), seeded: a searcher looking for one abstract with words of its title.
 */
export function titleQueries(corpus: CorpusDoc[], n: number, seed = 11): string[] {
  const stop = stopWordsFor('en');
  const rand = prng(seed);
  const out: string[] = [];
  for (let guard = 0; out.length < n && guard < n * 20; guard++) {
    const d = corpus[Math.floor(rand() * corpus.length)];
    const words = d.title.toLowerCase().split(/[^a-z]+/).filter((w) => w.length >= 3 && !stop.has(w));
    if (words.length < 2) continue;
    const a = Math.floor(rand() * words.length);
    let b = Math.floor(rand() * (words.length - 1));
    if (b >= a) b++;
    out.push(`${words[a]} ${words[b]}`);
  }
  return out;
}
