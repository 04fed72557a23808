import { existsSync, readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import type { Qrels } from './metrics.js';

/** A BEIR-format dataset: corpus.jsonl, queries.<split>.jsonl, qrels.<split>.tsv (with a header line). */
export interface Dataset {
  name: string;
  dir: string;
  split: string;
  corpus: { id: string; title: string; text: string }[];
  queries: { id: string; text: string }[];
  qrels: Qrels;
}

function readJsonl(file: string): Record<string, unknown>[] {
  if (!existsSync(file)) throw new Error(`missing ${file}`);
  return readFileSync(file, 'utf8')
    .split('\n')
    .map((line, i) => ({ line: line.trim(), i }))
    .filter(({ line }) => line)
    .map(({ line, i }) => {
      try {
        return JSON.parse(line) as Record<string, unknown>;
      } catch (err) {
        throw new Error(`${file}:${i + 1}: ${(err as Error).message}`);
      }
    });
}

const str = (v: unknown) => (v === undefined || v === null ? '' : String(v));

export function readQrels(file: string): Qrels {
  if (!existsSync(file)) throw new Error(`missing ${file}`);
  const qrels: Qrels = new Map();
  const lines = readFileSync(file, 'utf8').split('\n').slice(1); // header: query-id corpus-id score
  for (const [i, raw] of lines.entries()) {
    if (!raw.trim()) continue;
    const [q, d, score] = raw.split('\t');
    const rel = Number(score);
    if (!q || !d || !Number.isFinite(rel)) throw new Error(`${file}:${i + 2}: expected query-id<TAB>corpus-id<TAB>score, got "${raw}"`);
    if (!qrels.has(q)) qrels.set(q, new Map());
    qrels.get(q)!.set(d, rel);
  }
  return qrels;
}

export function loadDataset(dirArg: string, split: string, warn: (m: string) => void): Dataset {
  const dir = resolve(dirArg);
  const corpus: Dataset['corpus'] = [];
  const seen = new Set<string>();
  for (const row of readJsonl(join(dir, 'corpus.jsonl'))) {
    const id = str(row._id);
    if (!id) throw new Error(`corpus.jsonl: a document without _id: ${JSON.stringify(row).slice(0, 200)}`);
    if (seen.has(id)) {
      warn(`corpus.jsonl: duplicate _id ${id}, keeping the first`);
      continue;
    }
    seen.add(id);
    corpus.push({ id, title: str(row.title), text: str(row.text) });
  }
  const qrels = readQrels(join(dir, `qrels.${split}.tsv`));
  const queries = readJsonl(join(dir, `queries.${split}.jsonl`))
    .map((row) => ({ id: str(row._id), text: str(row.text) }))
    .filter((q) => qrels.has(q.id)); // BEIR ships all queries; only judged ones can be scored
  const present = new Set(queries.map((q) => q.id));
  const missing = [...qrels.keys()].filter((q) => !present.has(q));
  if (missing.length) warn(`${missing.length} judged queries are missing from queries.${split}.jsonl (scored as 0): ${missing.slice(0, 5).join(', ')}`);
  const unknownDocs = new Set([...qrels.values()].flatMap((m) => [...m.keys()]).filter((d) => !seen.has(d)));
  if (unknownDocs.size) warn(`${unknownDocs.size} judged documents are not in the corpus`);
  return { name: basename(dir), dir, split, corpus, queries, qrels };
}
