// Builds the operators' web app (web/ → web/dist/) with esbuild, and only when a source is newer than
// the last build, so `npm start` and `npm test` can call it every time. Plain JavaScript: it runs
// before anything is compiled. `--report` prints the initial download size (what a first visit fetches).
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { buildInto, isStale, rebuildOnChange } from './build-support.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const web = join(root, 'web');
const dist = join(web, 'dist');
const stamp = join(dist, 'index.html');

export function webIsStale() {
  return isStale(web, stamp, [join(root, 'package-lock.json'), fileURLToPath(import.meta.url)]);
}

/** Bundles web/src into hashed files under web/dist/assets and writes index.html naming them. */
export async function buildWeb({ minify = true } = {}) {
  const { build } = await import('esbuild');
  return buildInto(dist, async (next) => {
    const result = await build({
      entryPoints: [join(web, 'src/main.tsx')],
      bundle: true,
      format: 'esm',
      splitting: true,
      minify,
      sourcemap: minify ? false : 'inline',
      target: ['es2022'],
      jsx: 'automatic',
      jsxImportSource: 'preact',
      outdir: join(next, 'assets'),
      entryNames: '[name]-[hash]',
      chunkNames: 'chunk-[hash]',
      metafile: true,
      logLevel: 'warning',
      legalComments: 'none',
    });
    const outputs = Object.entries(result.metafile.outputs);
    // With splitting, every lazily imported page is an entry point of its own chunk too: pick main.tsx's.
    const entry = outputs.find(([, o]) => o.entryPoint?.endsWith('src/main.tsx'))?.[0];
    const css = outputs.find(([p]) => p.endsWith('.css'))?.[0];
    const name = (p) => relative(join(next, 'assets'), join(root, p));
    const html = readFileSync(join(web, 'index.html'), 'utf8').replace('%JS%', name(entry)).replace('%CSS%', name(css));
    writeFileSync(join(next, 'index.html'), html);
    return { html: stamp };
  });
}

/** Bytes a first visit downloads, gzip-compressed: index.html, the entry script, its static imports and the CSS. */
export function initialDownload() {
  const html = readFileSync(stamp, 'utf8');
  const files = ['index.html'];
  const queue = [...html.matchAll(/\/app\/assets\/([^"]+)/g)].map((m) => m[1]);
  const seen = new Set();
  while (queue.length) {
    const f = queue.shift();
    if (seen.has(f)) continue;
    seen.add(f);
    files.push(`assets/${f}`);
    if (f.endsWith('.js')) {
      const src = readFileSync(join(dist, 'assets', f), 'utf8');
      for (const m of src.matchAll(/(?:^|[;}])\s*import\s*(?:[^"'()]*?from\s*)?["']\.\/([^"']+)["']/g)) queue.push(m[1]);
    }
  }
  const rows = files.map((f) => {
    const bytes = readFileSync(join(dist, f));
    return { file: f, bytes: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
  });
  return { files: rows, bytes: rows.reduce((n, r) => n + r.bytes, 0), gzip: rows.reduce((n, r) => n + r.gzip, 0) };
}

export async function ensureWeb() {
  if (!webIsStale()) return;
  console.log('Building the web app (web/ → web/dist/)...');
  await buildWeb();
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  if (args.includes('--if-stale')) await ensureWeb();
  else await buildWeb({ minify: !args.includes('--dev') });
  if (args.includes('--watch')) rebuildOnChange(join(web, 'src'), () => buildWeb({ minify: false }), '/app/');
  if (args.includes('--report')) {
    const r = initialDownload();
    console.table(r.files.map((f) => ({ file: f.file, bytes: f.bytes, gzip: f.gzip })));
    console.log(`initial download: ${r.bytes} bytes, ${r.gzip} bytes gzip (${(r.gzip / 1024).toFixed(1)} KiB)`);
    const hash = createHash('sha256').update(JSON.stringify(r.files)).digest('hex').slice(0, 12);
    mkdirSync(join(root, 'bench-results'), { recursive: true });
    writeFileSync(join(root, 'bench-results', 'web-size.json'), JSON.stringify({ ...r, build: hash, at: new Date().toISOString() }, null, 2));
  }
}
