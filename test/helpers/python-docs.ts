import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';

export const SHARED_DATA = resolve(import.meta.dirname, '../../../shared/data');
const TARBALL = join(SHARED_DATA, 'python-docs/python-3.11.2-html.tar.gz');

export interface Page {
  uid: string;
  title: string;
  content: string;
}

/** The 530 pages of the Python docs, as a pusher would send them: path as uid, <title> as title. */
export function loadPythonDocs(): Page[] {
  if (!existsSync(TARBALL)) throw new Error(`missing ${TARBALL}: the evaluation data must sit beside the checkout in ../shared`);
  const dir = mkdtempSync(join(tmpdir(), 'quarry-pydocs-'));
  execFileSync('tar', ['-xzf', TARBALL, '-C', dir]);
  const root = join(dir, 'python-3.11.2');
  const pages: Page[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name.endsWith('.html')) {
        const content = readFileSync(p, 'utf8');
        const title = content.match(/<title>([^<]*)<\/title>/)?.[1]?.trim() || name;
        pages.push({ uid: relative(root, p), title, content });
      }
    }
  };
  walk(root);
  return pages.sort((a, b) => (a.uid < b.uid ? -1 : 1));
}

/** Runs fn over items with at most `limit` in flight. */
export async function pool<T, R>(items: T[], limit: number, fn: (item: T, i: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i], i);
    }
  }));
  return out;
}
