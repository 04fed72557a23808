import { basename, resolve } from 'node:path';
import { parseArgs } from 'node:util';

export interface EvalSettings {
  /**
   * beir: content search on a BEIR dataset; faq: the search interface on the Python docs FAQ (two page
   * shapes); structure: the search interface on the Python library reference's API entries (dl/dt
   * pages). faq and structure measure sections at headings only and at anchored items in one run.
   */
  mode: 'beir' | 'faq' | 'structure';
  dataset: string;
  split: string;
  language: string;
  /** Boosting strings to evaluate, each on the same index. */
  boostings: string[];
  /** Sent as `bm25` in the search body when either is given. */
  bm25: { k1: number; b: number } | null;
  concurrency: number;
  /** Use an already running instance instead of a private stack. */
  url: string | null;
  key: string | null;
}

export const USAGE = `npm run eval -- [options]
  --mode beir|faq|structure  beir (default): content search on a BEIR dataset;
                        faq: search interface (keyword, vector, fused) on the FAQ of
                        ../shared/data/python-docs as published (a heading per question) and
                        rewritten as anchored bold paragraphs, each sectioned before (h1-h6 only)
                        and after (anchored items too), beside whole-page BM25; then the same
                        rankings on ../shared/data/scifact pushed as pages;
                        structure: search interface on the API entries (<dt id>) of the
                        Python library reference in ../shared/data/python-docs, before and after
  --dataset <dir>       BEIR folder (default ../shared/data/scifact)
  --split dev           queries.<split>.jsonl and qrels.<split>.tsv
  --language en|zh|...  index language_code (default zh when the folder name contains "zh", else en)
  --boosting "title^1 text^1"   repeatable or comma-separated; all run on one index
  --k1 <n> --b <n>      sent as bm25: {k1, b} in the search body
  --concurrency 8       parallel pushes and queries
  --url <base> --key <master key>   use a running instance (key also from QUARRY_MASTER_KEY)`;

export function parseEvalArgs(argv: string[], root: string): EvalSettings {
  const { values } = parseArgs({
    args: argv,
    options: {
      mode: { type: 'string' },
      dataset: { type: 'string' },
      split: { type: 'string' },
      language: { type: 'string' },
      boosting: { type: 'string', multiple: true },
      k1: { type: 'string' },
      b: { type: 'string' },
      concurrency: { type: 'string' },
      url: { type: 'string' },
      key: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const num = (name: string, v: string | undefined, min: number): number | undefined => {
    if (v === undefined) return undefined;
    const n = Number(v);
    if (!Number.isFinite(n) || n < min) throw new Error(`--${name} must be a number >= ${min}, got "${v}"`);
    return n;
  };
  const mode = values.mode ?? 'beir';
  if (mode !== 'beir' && mode !== 'faq' && mode !== 'structure') throw new Error(`--mode must be beir, faq or structure, got "${mode}"`);
  const dataset = resolve(root, values.dataset ?? (mode === 'beir' ? '../shared/data/scifact' : '../shared/data/python-docs'));
  const boostings = (values.boosting ?? ['title^1 text^1'])
    .flatMap((b) => b.split(','))
    .map((b) => b.trim().replace(/\s+/g, ' '))
    .filter(Boolean);
  if (!boostings.length) throw new Error('--boosting: give at least one, e.g. "title^1 text^1"');
  const k1 = num('k1', values.k1, 0);
  const b = num('b', values.b, 0);
  if (b !== undefined && b > 1) throw new Error('--b must be between 0 and 1');
  // The API takes bm25 as {k1, b} with both present; a lone one would only earn a 400 per query.
  if ((k1 === undefined) !== (b === undefined)) throw new Error('give --k1 and --b together (e.g. --k1 0.9 --b 0.4, as the Lucene reference runs)');
  const url = values.url ? values.url.replace(/\/+$/, '') : null;
  const key = values.key ?? (url ? process.env.QUARRY_MASTER_KEY ?? null : null);
  if (url && !key) throw new Error('--url needs --key (or QUARRY_MASTER_KEY) with write, search and admin rights');
  return {
    mode,
    dataset,
    split: values.split ?? 'dev',
    language: values.language ?? (basename(dataset).toLowerCase().includes('zh') ? 'zh' : 'en'),
    boostings: [...new Set(boostings)],
    bm25: k1 === undefined || b === undefined ? null : { k1, b },
    concurrency: num('concurrency', values.concurrency, 1) ?? 8,
    url,
    key,
  };
}
