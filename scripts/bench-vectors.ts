// Where vectors should live in the embedded mode, measured: an exact scan over one contiguous
// Float32Array in memory, versus reading the BLOBs out of SQLite for every query.
//   npm run bench:vectors -- [--n 100000] [--queries 50]
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';

const { values } = parseArgs({ options: { n: { type: 'string', default: '100000' }, queries: { type: 'string', default: '50' } } });
const N = Number(values.n);
const Q = Number(values.queries);

function randomUnit(dim: number, rnd: () => number): Float32Array {
  const v = new Float32Array(dim);
  let s = 0;
  for (let i = 0; i < dim; i++) s += (v[i] = rnd() - 0.5) ** 2;
  const inv = 1 / Math.sqrt(s);
  for (let i = 0; i < dim; i++) v[i] *= inv;
  return v;
}

let seed = 42;
const rnd = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);

function topK(matrix: Float32Array, dim: number, q: Float32Array, k: number): number[] {
  const n = matrix.length / dim;
  const best: [number, number][] = [];
  for (let r = 0; r < n; r++) {
    let dot = 0;
    const o = r * dim;
    for (let i = 0; i < dim; i++) dot += matrix[o + i] * q[i];
    if (best.length < k) best.push([dot, r]);
    else if (dot > best[k - 1][0]) best[k - 1] = [dot, r];
    else continue;
    best.sort((a, b) => b[0] - a[0]);
  }
  return best.map(([, r]) => r);
}

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];
const rows: Record<string, string | number>[] = [];

for (const dim of [100, 384]) {
  const matrix = new Float32Array(N * dim);
  for (let r = 0; r < N; r++) matrix.set(randomUnit(dim, rnd), r * dim);
  const queries = Array.from({ length: Q }, () => randomUnit(dim, rnd));
  const mem: number[] = [];
  for (const q of queries) {
    const t = performance.now();
    topK(matrix, dim, q, 10);
    mem.push(performance.now() - t);
  }
  rows.push({ store: 'in-memory Float32Array, exact', dim, n: N, p50_ms: pct(mem, 0.5), p99_ms: pct(mem, 0.99), memory_mb: (matrix.byteLength / 2 ** 20) });

  const dir = mkdtempSync(join(tmpdir(), 'quarry-vec-'));
  const db = new Database(join(dir, 'v.db'));
  db.exec('CREATE TABLE v (id INTEGER PRIMARY KEY, vector BLOB)');
  const ins = db.prepare('INSERT INTO v (id, vector) VALUES (?, ?)');
  db.transaction(() => {
    for (let r = 0; r < N; r++) ins.run(r, Buffer.from(matrix.buffer, r * dim * 4, dim * 4));
  })();
  const scan = db.prepare('SELECT id, vector FROM v');
  const sql: number[] = [];
  for (const q of queries.slice(0, Math.min(Q, 10))) {
    const t = performance.now();
    const best: [number, number][] = [];
    for (const row of scan.iterate() as Iterable<{ id: number; vector: Buffer }>) {
      const v = new Float32Array(row.vector.buffer, row.vector.byteOffset, dim);
      let dot = 0;
      for (let i = 0; i < dim; i++) dot += v[i] * q[i];
      if (best.length < 10 || dot > best[best.length - 1][0]) {
        best.push([dot, row.id]);
        best.sort((a, b) => b[0] - a[0]);
        if (best.length > 10) best.pop();
      }
    }
    sql.push(performance.now() - t);
  }
  db.close();
  rmSync(dir, { recursive: true, force: true });
  rows.push({ store: 'SQLite BLOB scan per query', dim, n: N, p50_ms: pct(sql, 0.5), p99_ms: pct(sql, 0.99), memory_mb: 0 });
}

console.log(`\nVector search, top 10 by dot product, ${N} vectors, ${Q} queries, ${cpus().length} cores, node ${process.version}\n`);
console.log('| store | dim | p50 ms | p99 ms | resident MB |\n|---|---|---|---|---|');
for (const r of rows) console.log(`| ${r.store} | ${r.dim} | ${(r.p50_ms as number).toFixed(1)} | ${(r.p99_ms as number).toFixed(1)} | ${(r.memory_mb as number).toFixed(0)} |`);
const base = rows[0].p50_ms as number;
console.log(`\nSQLite scan / in-memory scan at dim 100: ${((rows[1].p50_ms as number) / base).toFixed(1)}x`);
mkdirSync('bench-results', { recursive: true });
writeFileSync('bench-results/vectors.json', JSON.stringify({ at: new Date().toISOString(), n: N, queries: Q, cores: cpus().length, node: process.version, rows }, null, 2));
