// The data folder holds documents, visitors' queries, conversations, key hashes and possibly the server secret:
// nobody but the service's user may read it. Plain JavaScript, so `npm start` (scripts/start.mjs) uses it
// before anything is compiled, as the API and workers do when they open the store.
import { chmodSync, lstatSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** The process umask of everything that writes the data folder: what it creates is its user's alone. */
export const PRIVATE_UMASK = 0o077;

/** `0644`: a mode as operators read it. */
export const octal = (mode) => `0${(mode & 0o777).toString(8).padStart(3, '0')}`;

/**
 * Creates `dir` (0700) if it is missing, and takes every group and other permission off it and off everything
 * in it (0755 -> 0700, 0644 -> 0600; the owner's bits stay). Symbolic links are not followed below `dir`.
 * Returns what changed, and what could not be changed (a file of another user).
 */
export function makeFolderPrivate(dir) {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const changed = [];
  const failed = [];
  const tighten = (path, mode) => {
    if ((mode & 0o077) === 0) return;
    const to = mode & 0o700;
    try {
      chmodSync(path, to);
      changed.push({ path, from: octal(mode), to: octal(to) });
    } catch (err) {
      failed.push({ path, mode: octal(mode), error: err.code ?? err.message });
    }
  };
  const walk = (folder) => {
    let names;
    try {
      names = readdirSync(folder);
    } catch (err) {
      failed.push({ path: folder, mode: octal(statSync(folder).mode), error: err.code ?? err.message });
      return;
    }
    for (const name of names) {
      const path = join(folder, name);
      const s = lstatSync(path, { throwIfNoEntry: false });
      if (!s || s.isSymbolicLink()) continue;
      tighten(path, s.mode);
      if (s.isDirectory()) walk(path);
    }
  };
  tighten(dir, statSync(dir).mode);
  walk(dir);
  return { changed, failed };
}

/** One line for a person: `data/quarry.db 0644 -> 0600, ...`. */
export function describeChanges(changed) {
  return changed.map((c) => `${c.path} ${c.from} -> ${c.to}`).join(', ');
}
