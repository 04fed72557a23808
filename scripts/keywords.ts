// The keyword leg on Qdrant (QUARRY_KEYWORD_INDEX=qdrant), from the command line, with the service's own
// settings (the same environment as its processes):
//   npm run keywords -- recalibrate [--index UID]
// measures each index's average field lengths again over its live sections (PostgreSQL), stores them in its
// Qdrant collection and writes every section's keyword point again with them (docs/scale-out.md). Every
// index when --index is not given. Safe while the service runs: pushes go on meanwhile.
import { parseArgs } from 'node:util';
import { loadConfig } from '../shared/config/config.js';
import { createStorage } from '../shared/storage/create-storage.js';
import { liveKeywordUnits } from '../shared/storage/keyword-units.js';
import { keywordKey } from '../shared/storage/ports/keyword-index.js';

const USAGE = 'usage: npm run keywords -- recalibrate [--index UID]   (with QUARRY_STORAGE=postgres, QDRANT_URL and QUARRY_KEYWORD_INDEX=qdrant set as for the service)';

const { positionals, values } = parseArgs({ allowPositionals: true, options: { index: { type: 'string' }, help: { type: 'boolean' } } });
if (values.help || positionals[0] !== 'recalibrate' || positionals.length !== 1) {
  console.error(USAGE);
  process.exit(values.help ? 0 : 2);
}
const config = loadConfig();
const storage = await createStorage(config.storage);
try {
  if (!storage.keywords) {
    console.error('The keyword leg is not in Qdrant here (QUARRY_KEYWORD_INDEX=qdrant with QDRANT_URL and QUARRY_STORAGE=postgres): the embedded engine measures its averages itself.');
    process.exitCode = 2;
  } else {
    const indexes = values.index ? [await storage.indexes.get(values.index)] : await storage.indexes.list();
    if (indexes[0] === null) {
      console.error(`No index '${values.index}'.`);
      process.exitCode = 1;
    }
    for (const index of indexes) {
      if (!index) continue;
      const t0 = performance.now();
      const r = await storage.keywords.recalibrate(keywordKey(index), index.fields, () => liveKeywordUnits(storage, index));
      if (!r) {
        console.log(`${index.uid}: nothing written to its keyword collection yet`);
        continue;
      }
      const change = Object.keys(r.after).map((f) => `${f} ${round(r.before[f])} -> ${round(r.after[f])}`).join(', ');
      console.log(`${index.uid}: ${r.sections} sections written again in ${((performance.now() - t0) / 1000).toFixed(1)} s; average tokens ${change}`);
    }
  }
} finally {
  await storage.close();
}

function round(n: number | undefined): string {
  return n === undefined ? '-' : String(Math.round(n * 10) / 10);
}
