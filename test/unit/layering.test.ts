import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const p = join(ROOT, dir, name);
    if (statSync(p).isDirectory()) return sources(relative(ROOT, p));
    return /\.(ts|mjs)$/.test(name) ? [relative(ROOT, p)] : [];
  });
}

const importsOf = (file: string) =>
  [...readFileSync(join(ROOT, file), 'utf8').matchAll(/(?:from|import)\s*\(?\s*'([^']+)'/g)].map((m) => m[1]);

describe('dependencies point one way', () => {
  it('shared/ never imports api/ or workers/', () => {
    const bad = sources('shared').flatMap((f) => importsOf(f).filter((i) => /(^|\/)(api|workers)\//.test(i)).map((i) => `${f} -> ${i}`));
    expect(bad).toEqual([]);
  });

  it('api/ and workers/ do not import each other', () => {
    const bad = [
      ...sources('api').flatMap((f) => importsOf(f).filter((i) => i.includes('workers/')).map((i) => `${f} -> ${i}`)),
      ...sources('workers').flatMap((f) => importsOf(f).filter((i) => i.includes('/api/')).map((i) => `${f} -> ${i}`)),
    ];
    expect(bad).toEqual([]);
  });

  it('the ingestion rules do no I/O and know no storage', () => {
    const bad = sources('shared/ingest').flatMap((f) =>
      importsOf(f).filter((i) => /^node:(fs|net|http|child_process)|storage\/|redis|bullmq|better-sqlite3/.test(i)).map((i) => `${f} -> ${i}`));
    expect(bad).toEqual([]);
  });

  it('shared/search imports storage ports, never an adapter: the vectors it searches are chosen where storage is built', () => {
    const bad = sources('shared/search').flatMap((f) =>
      importsOf(f).filter((i) => /storage\/(sqlite|postgres|qdrant|memory)\/|create-storage/.test(i)).map((i) => `${f} -> ${i}`));
    expect(bad).toEqual([]);
  });

  it('only shared/config reads process.env', () => {
    const readers = ['api', 'workers', 'shared'].flatMap(sources).filter((f) => /process\.env\b/.test(readFileSync(join(ROOT, f), 'utf8')));
    expect(readers.filter((f) => !f.startsWith('shared/config/') && !f.startsWith('shared/process/'))).toEqual([]);
  });
});
