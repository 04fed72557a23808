import { join, resolve } from 'node:path';
import { loadPythonDocs as loadTarball, type Page } from '../../scripts/eval/python-docs.js';

export type { Page };
export const SHARED_DATA = resolve(import.meta.dirname, '../../../shared/data');

/** The 530 pages of the Python docs, as a pusher would send them: path as uid, <title> as title. */
export function loadPythonDocs(): Page[] {
  return loadTarball(join(SHARED_DATA, 'python-docs/python-3.11.2-html.tar.gz'));
}

/** Runs fn over items with at most `limit` in flight. */
export { mapPool as pool } from '../../scripts/eval/quarry-eval-client.js';
