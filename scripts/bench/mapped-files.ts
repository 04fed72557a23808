import { readFileSync } from 'node:fs';

/**
 * Resident bytes of each file a process has memory-mapped (its `/proc/<pid>/smaps`), the largest first; null
 * once the process is gone. What of a snapshot, search.db or the GloVe table counts in its RSS.
 */
export function mappedFilesOf(pid: number | 'self'): { path: string; rss: number }[] | null {
  let smaps: string;
  try {
    smaps = readFileSync(`/proc/${pid}/smaps`, 'utf8');
  } catch {
    return null;
  }
  const byPath = new Map<string, number>();
  let path: string | null = null;
  for (const line of smaps.split('\n')) {
    const head = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ (\d+)\s*(.*)$/.exec(line);
    if (head) {
      path = head[1] !== '0' && head[2].startsWith('/') ? head[2] : null;
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss && path) byPath.set(path, (byPath.get(path) ?? 0) + Number(rss[1]) * 1024);
  }
  return [...byPath].map(([p, rss]) => ({ path: p, rss })).filter((f) => f.rss > 0).sort((a, b) => b.rss - a.rss);
}
