import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

export interface Page {
  uid: string;
  title: string;
  content: string;
}

export interface FaqQuestion {
  id: string;
  question: string;
  answer_page: string | null;
  answer_anchor?: string;
  supporting_pages?: string[];
}

/** The pages of the Python docs tarball, as a pusher would send them: path as uid, <title> as title. */
export function loadPythonDocs(tarball: string): Page[] {
  if (!existsSync(tarball)) throw new Error(`missing ${tarball}: the evaluation data must sit beside the checkout in ../shared`);
  const dir = mkdtempSync(join(tmpdir(), 'quarry-pydocs-'));
  try {
    execFileSync('tar', ['-xzf', tarball, '-C', dir]);
    const root = join(dir, readdirSync(dir)[0]);
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
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function loadFaqQuestions(file: string): FaqQuestion[] {
  return readFileSync(file, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as FaqQuestion);
}
