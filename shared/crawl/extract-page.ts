import { selectAll } from 'css-select';
import { parse as parseSelector, type Selector } from 'css-what';
import type { AnyNode, Document, Element } from 'domhandler';
import { getOuterHTML, removeElement, textContent } from 'domutils';
import { parseDocument } from 'htmlparser2';
import { AppError } from '../errors/app-error.js';
import { parseCappedDocument } from '../ingest/depth-capped-parser.js';
import { normalizeUrl } from './url-policy.js';
import { keyedByUser } from '../records/own.js';

export const EXTRACT_DEFAULTS = {
  /** Alternatives tried in order: the first that matches anything is the content. */
  contentSelector: 'main, article, body',
  /**
   * Page furniture. A header or footer inside main or article is the content's own (its title, its
   * notes), so only the site-wide ones go.
   */
  dropSelectors: [
    'nav',
    'header:not(main header, article header)',
    'footer:not(main footer, article footer)',
    'aside',
    'script',
    'style',
    'noscript',
    'template',
    'iframe',
    'svg',
    'form',
    '[hidden]',
    '[aria-hidden="true"]',
  ],
} as const;

export interface ExtractOptions {
  contentSelector?: string;
  dropSelectors?: readonly string[];
  /** CSS selectors whose matches on the original page are returned as node trees. */
  fragments?: readonly string[];
}

/** SPEC.md's JSON form of an HTML fragment. */
export interface FragmentNode {
  type: 'tag' | 'text';
  tag?: string;
  attr?: Record<string, string>;
  children?: FragmentNode[];
  data?: string;
}

export interface Fragment {
  selector: string;
  /** Empty when the selector finds nothing on the page. */
  matches: FragmentNode[];
}

export interface ExtractedPage {
  title: string;
  /** `<link rel=canonical>`, resolved and normalized; null when absent or not http(s). */
  canonical: string | null;
  /** Followable links: resolved against `<base href>` or the page, http(s), normalized, each once. */
  links: string[];
  /** `<meta name=robots content=noindex>`: the page may be crawled through but not indexed. */
  noindex: boolean;
  /** The main content as HTML, furniture removed: what the section pipeline takes. */
  contentHtml: string;
  /** Its text nodes joined by spaces, whitespace collapsed: for the content hash, not for display. */
  text: string;
  fragments: Fragment[];
}

/** Null when the selector is valid CSS that the extractor can run, else a message saying what is wrong. */
export function checkSelector(selector: string): string | null {
  try {
    selectAll<AnyNode, Element>(selector, parseDocument(''));
    return null;
  } catch (err) {
    return `"${selector}" is not a CSS selector the crawler supports: ${(err as Error).message}`;
  }
}

function select(selector: string | Selector[][], root: AnyNode | AnyNode[]): Element[] {
  try {
    return selectAll<AnyNode, Element>(selector, root);
  } catch (err) {
    const message = typeof selector === 'string' ? checkSelector(selector) : null;
    throw new AppError('invalid_request', message ?? (err as Error).message);
  }
}

const UNSAFE_TAGS = new Set(['script', 'style']);
// srcdoc is a whole HTML document run by the browser, as good as a script.
const UNSAFE_ATTRIBUTES = new Set(['srcdoc']);

function isUnsafeAttribute(name: string, value: string): boolean {
  if (name.startsWith('on') || UNSAFE_ATTRIBUTES.has(name)) return true;
  // Browsers ignore whitespace and control characters inside a scheme: "java\tscript:" still runs.
  const compact = value.replace(/[\u0000-\u0020]/g, '').toLowerCase();
  return compact.startsWith('javascript:') || compact.startsWith('vbscript:');
}

function toNode(node: AnyNode): FragmentNode | null {
  if (node.type === 'text') return { type: 'text', data: node.data };
  if (node.type !== 'tag' || UNSAFE_TAGS.has(node.name)) return null;
  const attr = keyedByUser<string>();
  for (const [name, value] of Object.entries(node.attribs)) {
    if (!isUnsafeAttribute(name.toLowerCase(), value)) attr[name] = value;
  }
  const children = node.children.map(toNode).filter((c): c is FragmentNode => c !== null);
  return { type: 'tag', tag: node.name, attr, children };
}

function extractFragments(doc: Document, selectors: readonly string[]): Fragment[] {
  return selectors.map((selector) => ({
    selector,
    matches: select(selector, doc)
      .map(toNode)
      .filter((n): n is FragmentNode => n !== null),
  }));
}

const collapse = (s: string) => s.replace(/\s+/g, ' ').trim();

/**
 * Text nodes joined by a space, whitespace collapsed: the same page reflowed (a newline between two
 * blocks or none) gives the same text, which the content hash relies on.
 */
function spacedText(nodes: AnyNode[]): string {
  const parts: string[] = [];
  const walk = (node: AnyNode) => {
    if (node.type === 'text') parts.push(node.data);
    else if ('children' in node) node.children.forEach(walk);
  };
  nodes.forEach(walk);
  return collapse(parts.join(' '));
}

function robotsMeta(doc: Document): Set<string> {
  const directives = new Set<string>();
  for (const meta of select('meta[name][content]', doc)) {
    const name = meta.attribs.name.toLowerCase();
    if (name !== 'robots' && name !== 'quarrybot') continue;
    for (const d of meta.attribs.content.toLowerCase().split(',')) directives.add(d.trim());
  }
  return directives;
}

function extractLinks(doc: Document, base: string): string[] {
  const links = new Set<string>();
  for (const a of select('a[href], area[href]', doc)) {
    const rel = (a.attribs.rel ?? '').toLowerCase().split(/\s+/);
    if (rel.includes('nofollow')) continue;
    const url = normalizeUrl(a.attribs.href, base);
    if (url) links.add(url);
  }
  return [...links];
}

/**
 * The elements of the first alternative of the selector list that matches anything; the whole
 * document when none does (htmlparser2 adds no implied <body> to a bare fragment).
 */
function contentRoots(doc: Document, contentSelector: string): (Element | Document)[] {
  let alternatives;
  try {
    alternatives = parseSelector(contentSelector);
  } catch {
    throw new AppError('invalid_request', checkSelector(contentSelector) ?? `"${contentSelector}" is not a CSS selector`);
  }
  for (const alternative of alternatives) {
    const found = select([alternative], doc);
    // Nested matches (an article inside an article) would repeat content: keep the outermost. One
    // walk up per match (the tree is at most MAX_HTML_DEPTH deep), not one per pair of matches.
    const matched = new Set<AnyNode>(found);
    const outer = found.filter((el) => !hasAncestorIn(el, matched));
    if (outer.length > 0) return outer;
  }
  return [doc];
}

function hasAncestorIn(node: AnyNode, set: Set<AnyNode>): boolean {
  for (let p = node.parent; p; p = p.parent) if (set.has(p)) return true;
  return false;
}

/**
 * Everything the crawler takes from one HTML page. Fragments come from the page as served; the
 * content is taken after the drop selectors removed their elements.
 */
export function extractPage(html: string, pageUrl: string, options: ExtractOptions = {}): ExtractedPage {
  // Depth-capped: the serializers and walks below recurse once per level of nesting.
  const doc = parseCappedDocument(html);
  const fragments = extractFragments(doc, options.fragments ?? []);
  const baseHref = select('base[href]', doc)[0]?.attribs.href;
  const base = (baseHref && normalizeUrl(baseHref, pageUrl)) || pageUrl;
  const canonicalHref = select('link[rel][href]', doc).find((l) => l.attribs.rel.toLowerCase().split(/\s+/).includes('canonical'))?.attribs.href;
  const robots = robotsMeta(doc);
  const titleEl = select('title', doc)[0] ?? select('h1', doc)[0];
  const links = robots.has('nofollow') || robots.has('none') ? [] : extractLinks(doc, base);
  for (const selector of options.dropSelectors ?? EXTRACT_DEFAULTS.dropSelectors) {
    for (const el of select(selector, doc)) removeElement(el);
  }
  const roots = contentRoots(doc, options.contentSelector ?? EXTRACT_DEFAULTS.contentSelector);
  return {
    title: titleEl ? collapse(textContent(titleEl)) : '',
    canonical: canonicalHref ? normalizeUrl(canonicalHref, base) : null,
    links,
    noindex: robots.has('noindex') || robots.has('none'),
    contentHtml: roots.map((el) => el.children.map((c) => getOuterHTML(c)).join('')).join('\n'),
    text: spacedText(roots),
    fragments,
  };
}
