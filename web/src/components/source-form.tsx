import { useState } from 'preact/hooks';
import { ApiError } from '../api';
import { messageOf } from './async';
import { Field, FormFooter } from './controls';
import type { SourceSettings } from './source-types';

/** The body fields the form has a control for; a 400 naming one of them is shown under it. */
const FIELDS = ['uid', 'start_urls', 'sitemaps', 'include', 'exclude', 'max_pages', 'max_depth', 'recrawl_hours', 'content_selector', 'drop_selectors', 'fragments'] as const;
type FieldName = (typeof FIELDS)[number];
const LIST_FIELDS = ['start_urls', 'sitemaps', 'include', 'exclude', 'drop_selectors', 'fragments'] as const;
type ListField = (typeof LIST_FIELDS)[number];

/**
 * The server's 400 reads "Invalid request: <field>[.<n>]: <what>; <field>: <what>..." (api/schemas/validate.ts).
 * Splitting on "; " before a known field name keeps a message that itself holds "; " (a selector's) whole.
 */
export function sourceFieldErrors(message: string): { field: FieldName; item: number | null; message: string }[] {
  const m = /^Invalid request: (.*)$/s.exec(message);
  if (!m) return [];
  const names = FIELDS.join('|');
  const parts = m[1].split(new RegExp(`; (?=(?:${names})(?:\\.\\d+)?: )`));
  const found = [];
  for (const part of parts) {
    const p = new RegExp(`^(${names})(?:\\.(\\d+))?: (.*)$`, 's').exec(part);
    if (!p) return [];
    found.push({ field: p[1] as FieldName, item: p[2] === undefined ? null : Number(p[2]), message: p[3] });
  }
  return found;
}

/** Non-empty lines with their 1-based line numbers: list items are sent in this order, so item n is line lines[n][0]. */
const lines = (s: string) => s.split('\n').map((text, i) => [i + 1, text.trim()] as const).filter(([, t]) => t);
const joined = (list: string[] | null) => (list ?? []).join('\n');

type Text = Record<ListField, string> & { uid: string; max_pages: string; max_depth: string; recrawl_hours: string; content_selector: string };

/**
 * Every setting of a website source, for creating one (with its uid) and editing one. The server validates;
 * each problem its 400 names is shown under the control it is about, a list item by its line.
 */
export function SourceForm(props: { initial: SourceSettings; mode: 'create' | 'edit'; submitLabel: string; onSubmit: (body: Record<string, unknown>) => Promise<void> }) {
  const init = props.initial;
  const [text, setText] = useState<Text>({
    uid: '', start_urls: joined(init.start_urls), sitemaps: joined(init.sitemaps), include: joined(init.include), exclude: joined(init.exclude),
    drop_selectors: joined(init.drop_selectors), fragments: joined(init.fragments), max_pages: String(init.max_pages), max_depth: String(init.max_depth),
    recrawl_hours: init.recrawl_hours === null ? '' : String(init.recrawl_hours), content_selector: init.content_selector ?? '',
  });
  // null drop selectors are the extractor's defaults; an empty list drops nothing: two different settings.
  const [defaultDrops, setDefaultDrops] = useState(init.drop_selectors === null);
  const [errors, setErrors] = useState<Partial<Record<FieldName, string>>>({});
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const [busy, setBusy] = useState(false);
  const id = (name: string) => `source-${props.mode}-${name}`;
  const set = (k: keyof Text, value: string) => {
    setSaved(false);
    setText((t) => ({ ...t, [k]: value }));
  };
  const num = (s: string) => (s.trim() === '' ? null : Number(s));

  async function submit(e: Event) {
    e.preventDefault();
    setBusy(true);
    setErrors({});
    setError(null);
    setSaved(false);
    const list = (k: ListField) => lines(text[k]).map(([, t]) => t);
    const body: Record<string, unknown> = {
      ...(props.mode === 'create' ? { uid: text.uid.trim(), kind: 'website' } : {}),
      start_urls: list('start_urls'), sitemaps: list('sitemaps'), include: list('include'), exclude: list('exclude'),
      max_pages: num(text.max_pages), max_depth: num(text.max_depth), recrawl_hours: num(text.recrawl_hours),
      content_selector: text.content_selector.trim() || null, drop_selectors: defaultDrops ? null : list('drop_selectors'), fragments: list('fragments'),
    };
    try {
      await props.onSubmit(body);
      setSaved(true);
    } catch (err) {
      const named = err instanceof ApiError && err.status === 400 ? sourceFieldErrors(err.message) : [];
      if (err instanceof ApiError && err.status === 409 && props.mode === 'create') named.push({ field: 'uid', item: null, message: err.message });
      if (named.length === 0) {
        setError(messageOf(err));
        return;
      }
      const byField: Partial<Record<FieldName, string>> = {};
      for (const n of named) {
        const where = n.item === null || !(LIST_FIELDS as readonly string[]).includes(n.field) ? '' : lineOf(text[n.field as ListField], n.item);
        byField[n.field] = [byField[n.field], `${where}${n.message}`].filter(Boolean).join(' ');
      }
      setErrors(byField);
      document.getElementById(id(FIELDS.find((f) => byField[f])!))?.focus();
    } finally {
      setBusy(false);
    }
  }

  /** Props tying a control to its hint and error for screen readers. */
  const described = (name: FieldName, hint = true) => {
    const ids = [hint ? `${id(name)}-hint` : '', errors[name] ? `${id(name)}-error` : ''].filter(Boolean).join(' ');
    return { id: id(name), 'aria-invalid': errors[name] ? ('true' as const) : undefined, 'aria-describedby': ids || undefined };
  };
  const listField = (name: ListField, label: string, hint: string, rows = 3) => (
    <Field label={label} id={id(name)} hint={hint} error={errors[name]}>
      <textarea rows={rows} spellcheck={false} class="mono" value={text[name]} onInput={(e) => set(name, e.currentTarget.value)} {...described(name)} />
    </Field>
  );

  return (
    <form class="card" onSubmit={submit} noValidate aria-describedby={error ? id('error') : undefined}>
      {props.mode === 'create' && (
        <Field label="Source uid" id={id('uid')} hint="1-57 letters, digits, hyphens or underscores; its pages go to the index source-<uid>" error={errors.uid}>
          <input autoComplete="off" spellcheck={false} value={text.uid} onInput={(e) => set('uid', e.currentTarget.value)} {...described('uid')} />
        </Field>
      )}
      <fieldset>
        <legend>Where the crawl starts</legend>
        {listField('start_urls', 'Start urls', 'One absolute http(s) url a line: pages the crawl starts from and follows links of')}
        {listField('sitemaps', 'Sitemap urls', 'One a line: sitemaps or sitemap indexes whose pages are crawled (give at least one start url or sitemap)')}
      </fieldset>
      <fieldset>
        <legend>Which urls are crawled</legend>
        <div class="grid2 source-patterns">
          {listField('include', 'Include patterns', 'One glob a line, * matches anything; /docs/* matches path and query, else the whole url. Empty: every url on the start hosts')}
          {listField('exclude', 'Exclude patterns', 'One glob a line: a url matching any is never fetched')}
        </div>
        <div class="row spaced source-numbers">
          <Field label="Max pages" id={id('max_pages')} hint="1 to 100,000 urls a crawl fetches" error={errors.max_pages}>
            <input type="number" min={1} max={100000} step={1} size={8} value={text.max_pages} onInput={(e) => set('max_pages', e.currentTarget.value)} {...described('max_pages')} />
          </Field>
          <Field label="Max depth" id={id('max_depth')} hint="0 to 100 links from a start url or sitemap" error={errors.max_depth}>
            <input type="number" min={0} max={100} step={1} size={5} value={text.max_depth} onInput={(e) => set('max_depth', e.currentTarget.value)} {...described('max_depth')} />
          </Field>
          <Field label="Recrawl every (hours)" id={id('recrawl_hours')} hint="1 to 8760; empty: only when you press Crawl now" error={errors.recrawl_hours}>
            <input type="number" min={1} max={8760} step={1} size={6} value={text.recrawl_hours} onInput={(e) => set('recrawl_hours', e.currentTarget.value)} {...described('recrawl_hours')} />
          </Field>
        </div>
      </fieldset>
      <fieldset>
        <legend>What is taken from a page</legend>
        <Field label="Main-content selector" id={id('content_selector')} hint="CSS, alternatives by comma, first match wins. Empty: main, article, body" error={errors.content_selector}>
          <input class="mono" spellcheck={false} value={text.content_selector} onInput={(e) => set('content_selector', e.currentTarget.value)} {...described('content_selector')} />
        </Field>
        <label class="choice">
          <input type="checkbox" checked={defaultDrops} onChange={(e) => { setSaved(false); setDefaultDrops(e.currentTarget.checked); }} />
          Drop the default elements <span class="muted">(navigation, site header and footer, aside, scripts, forms, hidden elements)</span>
        </label>
        {!defaultDrops && listField('drop_selectors', 'Drop selectors', 'One CSS selector a line: elements removed before the content is taken. Empty: nothing is dropped')}
        {listField('fragments', 'Fragment selectors', 'One CSS selector a line (up to 20): matches are kept as node trees and come back as metadata on search results')}
      </fieldset>
      <FormFooter errorId={id('error')} error={error} saved={saved && (props.mode === 'create' ? 'Created.' : 'Saved.')} busy={busy} submitLabel={props.submitLabel} />
    </form>
  );
}

/** "Line 2 (ftp://x): " for the n-th item sent from a textarea. */
function lineOf(value: string, item: number): string {
  const line = lines(value)[item];
  return line ? `Line ${line[0]} (${line[1]}): ` : '';
}
