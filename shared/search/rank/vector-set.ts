import { topUnits } from './top-units.js';

/**
 * Unit vectors of an index, packed in one Float32Array (unit-major), unit-normalised on insert so
 * a dot product is the cosine. Exact search: one tight loop over contiguous memory, no per-vector
 * objects, which is what keeps 100,000 x 100 dimensions within a few milliseconds.
 */
export class VectorSet {
  dims = 0;
  private data = new Float32Array(0);
  private present = new Uint8Array(0);
  private scores = new Float64Array(0);
  count = 0;

  set(unit: number, vector: Float32Array): void {
    if (this.dims === 0) this.dims = vector.length;
    // Vectors of another size come from another model: they cannot be compared, so they are left out.
    if (vector.length !== this.dims) return;
    this.ensure(unit);
    let norm = 0;
    for (let i = 0; i < vector.length; i++) norm += vector[i] * vector[i];
    norm = Math.sqrt(norm) || 1;
    const base = unit * this.dims;
    for (let i = 0; i < vector.length; i++) this.data[base + i] = vector[i] / norm;
    if (!this.present[unit]) this.count++;
    this.present[unit] = 1;
  }

  delete(unit: number): void {
    if (unit < this.present.length && this.present[unit]) {
      this.present[unit] = 0;
      this.count--;
    }
  }

  /** The k units most similar to `query`, best first, with their cosine similarity. */
  top(query: Float32Array, k: number, allow?: (unit: number) => boolean): { unit: number; score: number }[] {
    if (this.count === 0 || query.length !== this.dims) return [];
    let norm = 0;
    for (let i = 0; i < query.length; i++) norm += query[i] * query[i];
    norm = Math.sqrt(norm) || 1;
    const q = Float32Array.from(query, (x) => x / norm);
    const { data, present, dims } = this;
    const n = present.length;
    if (this.scores.length < n) this.scores = new Float64Array(n);
    const scores = this.scores;
    const units: number[] = [];
    for (let u = 0; u < n; u++) {
      if (!present[u] || (allow && !allow(u))) continue;
      let dot = 0;
      const base = u * dims;
      for (let i = 0; i < dims; i++) dot += data[base + i] * q[i];
      scores[u] = dot;
      units.push(u);
    }
    return topUnits(units, scores, k).map((unit) => ({ unit, score: scores[unit] }));
  }

  private ensure(unit: number) {
    if (unit < this.present.length) return;
    let n = Math.max(1024, this.present.length);
    while (n <= unit) n *= 2;
    const data = new Float32Array(n * this.dims);
    data.set(this.data);
    this.data = data;
    const present = new Uint8Array(n);
    present.set(this.present);
    this.present = present;
  }
}
