// Builds the embeddable widget (widget/src → widget/dist/) with esbuild, and only when a source is newer
// than the last build, so `npm start` and `npm test` can call it every time. One minified IIFE and no
// code splitting: a host page pays for one request. The manifest names the file the API serves as
// /widget.js and /widget/<hash>.js. Plain JavaScript: it runs before anything is compiled.
// `--report` prints the size (the budget is 35 KB gzip) and writes bench-results/widget-size.json.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { buildInto, isStale, rebuildOnChange } from './build-support.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const widget = join(root, 'widget');
const dist = join(widget, 'dist');
const manifestPath = join(dist, 'manifest.json');
export const WIDGET_BUDGET_GZIP = 35 * 1024;

export function widgetIsStale() {
  return isStale(widget, manifestPath, [join(root, 'package-lock.json'), fileURLToPath(import.meta.url)]);
}

/** Bundles widget/src/main.tsx into widget/dist/widget-<hash>.js and writes manifest.json naming it. */
export async function buildWidget({ minify = true } = {}) {
  const { build } = await import('esbuild');
  return buildInto(dist, async (next) => {
    const result = await build({
      entryPoints: { widget: join(widget, 'src/main.tsx') },
      bundle: true,
      format: 'iife',
      minify,
      sourcemap: minify ? false : 'inline',
      // Host pages' visitors run whatever browser they have: a year or two older than the operators'.
      target: ['es2020', 'chrome90', 'firefox90', 'safari15'],
      jsx: 'automatic',
      jsxImportSource: 'preact',
      outdir: next,
      entryNames: '[name]-[hash]',
      metafile: true,
      logLevel: 'warning',
      legalComments: 'none',
      define: { 'process.env.NODE_ENV': '"production"' },
    });
    const outputs = Object.keys(result.metafile.outputs).filter((p) => p.endsWith('.js'));
    if (outputs.length !== 1) throw new Error(`the widget must build to one file, got ${outputs.join(', ')}`);
    const file = basename(outputs[0]);
    const hash = file.slice('widget-'.length, -'.js'.length);
    writeFileSync(join(next, 'manifest.json'), `${JSON.stringify({ file, hash }, null, 2)}\n`);
    return { file: join(dist, file), hash };
  });
}

/** The built bundle's name and sizes (bytes, gzip at level 9, as a server or CDN would send it). */
export function widgetSize() {
  const { file, hash } = JSON.parse(readFileSync(manifestPath, 'utf8'));
  const bytes = readFileSync(join(dist, file));
  return { file, hash, bytes: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length, budget_gzip: WIDGET_BUDGET_GZIP };
}

export async function ensureWidget() {
  if (!widgetIsStale()) return;
  console.log('Building the widget (widget/ → widget/dist/)...');
  await buildWidget();
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  if (args.includes('--if-stale')) await ensureWidget();
  else await buildWidget({ minify: !args.includes('--dev') });
  if (args.includes('--watch')) rebuildOnChange(join(widget, 'src'), () => buildWidget({ minify: false }), '/widget.js');
  if (args.includes('--report')) {
    const r = widgetSize();
    console.log(`${r.file}: ${r.bytes} bytes, ${r.gzip} bytes gzip (${(r.gzip / 1024).toFixed(1)} KiB; budget ${WIDGET_BUDGET_GZIP / 1024} KiB)`);
    mkdirSync(join(root, 'bench-results'), { recursive: true });
    writeFileSync(join(root, 'bench-results', 'widget-size.json'), JSON.stringify({ ...r, at: new Date().toISOString() }, null, 2));
    if (r.gzip > WIDGET_BUDGET_GZIP) process.exitCode = 1;
  }
}
