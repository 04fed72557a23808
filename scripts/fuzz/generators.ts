// Input generators shared by the fuzz tests (short mode, in `npm test`) and `npm run fuzz` (long mode).
// Each takes the PRNG of one input (test/helpers/prng.ts inputRand), so input i of a seed replays alone.
import { readFileSync, readdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import type { FeedbackPayload } from '../../shared/feedback/feedback-token.js';

export type Rand = () => number;

const pick = <T>(rand: Rand, list: readonly T[]): T => list[Math.floor(rand() * list.length)];
const int = (rand: Rand, below: number) => Math.floor(rand() * below);

/** Text a hostile or unlucky client sends: controls, lone surrogates, RTL overrides, combining marks, ZWJ emoji. */
export const UNICODE_EDGES = [
  '\u0000', '\u0001', '\u001f', '\u007f', '\ud800', '\udfff', '\udc00\ud800', '\u202e', '\u200f', '\u2066', '\u0301',
  'e\u0301\u0301\u0301', '\ufeff', '\ufffe', '\uffff', '\u{10ffff}', '👩‍👩‍👧‍👦', '🏳️‍🌈', '中文', 'ü', 'ß', 'İ', '\u00a0', '\u2028',
];

function randomCodeUnit(rand: Rand): string {
  const r = rand();
  if (r < 0.5) return String.fromCharCode(int(rand, 0x10000)); // includes lone surrogates
  if (r < 0.8) return String.fromCodePoint(int(rand, 0x110000));
  return pick(rand, UNICODE_EDGES);
}

/** Inserts, deletes or replaces 1..edits characters of `s`, each new one from `char`. */
function mutate(rand: Rand, s: string, char: () => string, edits: number): string {
  let out = s;
  const n = 1 + int(rand, edits);
  for (let e = 0; e < n; e++) {
    const at = int(rand, out.length + 1);
    const op = rand();
    if (op < 0.4) out = out.slice(0, at) + char() + out.slice(at);
    else if (op < 0.7) out = out.slice(0, at) + out.slice(at + 1);
    else out = out.slice(0, at) + char() + out.slice(at + 1);
  }
  return out;
}

/**
 * Members of every JavaScript object: as names users choose (fields, filter fields, parameters, keys) they
 * must be plain data, never found on a prototype (docs/security.md, review of 40020bc finding 3).
 */
export const PROPERTY_NAMES = [
  'constructor', '__proto__', 'toString', 'valueOf', 'hasOwnProperty', 'isPrototypeOf', 'propertyIsEnumerable', 'toLocaleString',
  '__defineGetter__', '__lookupSetter__', 'prototype',
];

// ---------------------------------------------------------------- fq (Solr filter) strings, in process

const FQ_SYNTAX = [...'()[]{}:"\\*?~^+-!&| TOANDORNOT/u0123456789az'];
const FQ_WORDS = ['AND', 'OR', 'NOT', '&&', '||', 'TO', '*:*', 'f:', 'NOW-7DAYS', '\\u00', '"', '[', '}', '^2', '~0.5', ...PROPERTY_NAMES.map((n) => `${n}:`)];

let fqCorpus: string[] | null = null;
/** The Lucene query parser's own test cases (../shared/data) and filters in our dialect, as mutation seeds. */
function fqSeeds(): string[] {
  if (fqCorpus) return fqCorpus;
  const dir = resolve(process.cwd(), '../shared/data/lucene-queryparser-cases');
  fqCorpus = [
    ...readdirSync(dir).filter((f) => f.endsWith('.jsonl')).flatMap((f) =>
      readFileSync(resolve(dir, f), 'utf8').split('\n').filter((l) => l.trim()).map((l) => (JSON.parse(l) as { query: string }).query)),
    '-status:draft', 'title:(a OR b) AND NOT c', 'last_modified:[NOW-7DAYS TO NOW/DAY}', 'price:{10 TO *]', 'f:*', '*:*',
    'a:"x \\" y"~3^2', 'a\\ b:c\\ d', '+(a (b (c (d))))', 'x:te?m* && !y:z || w',
  ];
  return fqCorpus;
}

function fqChar(rand: Rand): string {
  const r = rand();
  if (r < 0.7) return pick(rand, FQ_SYNTAX);
  if (r < 0.8) return pick(rand, FQ_WORDS);
  return randomCodeUnit(rand);
}

/** A filter for the parser: a third random characters and words, the rest mutated corpus filters. */
export function fqInput(rand: Rand, index: number): string {
  if (index % 3 === 0) return Array.from({ length: int(rand, 40) }, () => fqChar(rand)).join('');
  return mutate(rand, pick(rand, fqSeeds()), () => fqChar(rand), 5);
}

// ---------------------------------------------------------------- fq over HTTP (content search)

/** The content-search fuzz index: these fields (three named like Object.prototype members), one document. */
export const CONTENT_FUZZ_SCHEMA = {
  fields: {
    title: { type: 'text' }, status: { type: 'string' }, price: { type: 'float' }, stock: { type: 'int' }, published: { type: 'date' }, featured: { type: 'boolean' },
    // Computed keys: a literal `__proto__:` would set the prototype instead of declaring a field.
    ['constructor']: { type: 'string' }, ['toString']: { type: 'int' }, ['__proto__']: { type: 'text' },
  },
};
export const CONTENT_FUZZ_DOCUMENT = {
  uid: 'a',
  fields: { title: 'Trail shoes', status: 'published', price: 90, stock: 3, published: '2026-01-01', featured: true, ['constructor']: 'red', ['toString']: 5, ['__proto__']: 'proto text' },
};
const declared = (name: string) => Object.hasOwn(CONTENT_FUZZ_SCHEMA.fields, name);
const FILTER_SEEDS = [
  'status:published', '-status:draft', 'price:[10 TO 100}', 'price:{* TO 5]', 'published:[NOW-7DAYS TO NOW/DAY]',
  'title:(trail OR road) AND NOT status:draft', 'title:"trail shoes"~2', 'status:pub*', 'title:*', '*:*', 'featured:true',
  'stock:3 || stock:[5 TO *]', '+title:shoe -price:[100 TO *]', 'status:(a b c)', 'unknown:x', 'price:abc',
  'constructor:red', 'toString:[1 TO 9]', '__proto__:proto', 'hasOwnProperty:*', 'valueOf:x',
];
const FILTER_ALPHABET = [...'()[]{}:"\\*?~^+-!&| TOANDORNOT0123456789az.'];
const PROPERTY_VALUES = ['x', '*', 'red', '5', '[a TO z]', '[1 TO 9]', '{* TO *}', '"proto text"', 'pro*', 'true', 'NOW'];

/**
 * A filter over the fuzz index's fields: a fifth random, a fifth one clause on an Object.prototype
 * member's name, the rest mutated valid filters. `undeclared` is set when the filter is that one clause
 * on a name the index lacks: it must be a 400 (a 200 matched through a prototype).
 */
export function contentFilterInput(rand: Rand, index: number): { filter: string; undeclared?: string } {
  const r = rand();
  if (r < 0.2) return { filter: Array.from({ length: int(rand, 40) }, () => pick(rand, FILTER_ALPHABET)).join('') };
  if (r < 0.4) {
    const name = pick(rand, PROPERTY_NAMES);
    const filter = `${rand() < 0.2 ? '-' : ''}${name}:${pick(rand, PROPERTY_VALUES)}`;
    return declared(name) ? { filter } : { filter, undeclared: name };
  }
  const char = () => (rand() < 0.9 ? pick(rand, FILTER_ALPHABET) : String.fromCharCode(int(rand, 0x10000)));
  const out = mutate(rand, FILTER_SEEDS[index % FILTER_SEEDS.length], char, 4);
  return { filter: rand() < 0.1 ? `${out} ${pick(rand, FILTER_SEEDS)}` : out };
}

/** Fields to project: none mostly, else a declared field or an Object.prototype member's name. */
export function contentFieldsInput(rand: Rand): { fields: string[]; undeclared?: string } {
  if (rand() < 0.6) return { fields: [] };
  const name = rand() < 0.3 ? pick(rand, Object.keys(CONTENT_FUZZ_SCHEMA.fields)) : pick(rand, PROPERTY_NAMES);
  return declared(name) ? { fields: [name] } : { fields: [name], undeclared: name };
}

// ---------------------------------------------------------------- qf (boosting) strings

const QF_SEEDS = ['title^2 body^1', 'title', 'title^1.5 text^0.25 body', '  a^1e3   b^.5 ', 'f_1^0 g^2.', 'title^2 title^3', 'x^-1'];
const QF_ALPHABET = [...'abtiledyx_019^.eE+- \t\n'];

export function qfInput(rand: Rand, index: number): string {
  const char = () => (rand() < 0.85 ? pick(rand, QF_ALPHABET) : randomCodeUnit(rand));
  if (index % 4 === 0) return Array.from({ length: int(rand, 30) }, char).join('');
  if (index % 4 === 1) return Array.from({ length: 1 + int(rand, 12) }, (_, k) => `f${k}^${(rand() * 100).toFixed(int(rand, 4))}`).join(' '.repeat(1 + int(rand, 3)));
  return mutate(rand, pick(rand, QF_SEEDS), char, 4);
}

// ---------------------------------------------------------------- HTML pages for the sectioner

const HTML_TAGS = [
  'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'p', 'div', 'span', 'a', 'b', 'strong', 'em', 'dl', 'dt', 'dd', 'ul', 'ol', 'li', 'table', 'tr', 'td',
  'th', 'pre', 'code', 'main', 'nav', 'script', 'style', 'title', 'head', 'body', 'html', 'svg', 'textarea', 'section', 'br', 'hr', 'img',
  'template', 'noscript', 'button', 'iframe', 'xmp', 'plaintext', 'listing', 'math', 'caption', 'details', 'summary',
];
const HTML_ATTRS = [
  'id="x"', 'id="q1"', 'name="q2"', 'class="headerlink"', 'href="#x"', 'href="javascript:alert(1)"', 'hidden', 'aria-hidden="true"',
  'role="main"', 'role="navigation"', 'style="display:none"', 'style="DISPLAY : none"', 'class="a b"', 'id=""', "id='a\"b'", 'id=x y=z',
  'id="\u0000"', 'title="<p>"',
];
const HTML_TEXTS = [
  'Hello world.', 'How do I append to a list?', '¶', '#', '🔗', '&amp;', '&lt;script&gt;', '&nbsp;', '&#0;', '&#xD800;', '&#x10FFFF;',
  '&#99999999;', '&bogus;', '&', '<', '</', '<!--', '-->', '<![CDATA[x]]>', '<!DOCTYPE html>', '<?xml?>', '\r\n', '\n\n', '\t', '   ',
  '. ', '? ',
];

/** A page: random tags (well nested or not), attributes, entities, comments and unicode; now and then deeply nested or long. */
export function htmlInput(rand: Rand): string {
  const parts: string[] = [];
  const open: string[] = [];
  const steps = int(rand, 60);
  for (let s = 0; s < steps; s++) {
    const r = rand();
    if (r < 0.3) {
      const tag = pick(rand, HTML_TAGS);
      const attrs = Array.from({ length: int(rand, 3) }, () => pick(rand, HTML_ATTRS)).join(' ');
      parts.push(`<${rand() < 0.05 ? tag.toUpperCase() : tag}${attrs ? ` ${attrs}` : ''}${rand() < 0.05 ? '/' : ''}>`);
      open.push(tag);
    } else if (r < 0.5) {
      const tag = rand() < 0.8 && open.length ? open.splice(int(rand, open.length), 1)[0] : pick(rand, HTML_TAGS);
      parts.push(`</${tag}>`);
    } else if (r < 0.8) {
      parts.push(pick(rand, HTML_TEXTS));
    } else {
      parts.push(Array.from({ length: 1 + int(rand, 8) }, () => randomCodeUnit(rand)).join(''));
    }
  }
  // One page in twenty is big: nested thousands deep, or a long run of words, sentences or lines.
  if (rand() < 0.05) {
    const at = int(rand, parts.length + 1);
    const n = int(rand, 5000);
    if (rand() < 0.5) {
      const tag = pick(rand, ['div', 'b', 'dl', 'li', 'span', 'td', 'pre', 'h2']);
      parts.splice(at, 0, `<${tag}>`.repeat(n), 'deep', rand() < 0.5 ? `</${tag}>`.repeat(n) : '');
    } else {
      parts.splice(at, 0, pick(rand, ['word ', 'x', 'a. ', '\n', '<p>a</p>']).repeat(n));
    }
  }
  while (open.length && rand() < 0.7) parts.push(`</${open.pop()}>`);
  return parts.join('');
}

// ---------------------------------------------------------------- feedback_data tokens

/** A payload as search issues them, with awkward but legal values. */
export function feedbackPayload(rand: Rand): FeedbackPayload {
  const text = () => Array.from({ length: int(rand, 20) }, () => (rand() < 0.7 ? String.fromCharCode(97 + int(rand, 26)) : randomCodeUnit(rand))).join('');
  return {
    e: text(), c: text(), v: rand() < 0.5 ? 'ui' : 'tool', p: 1 + int(rand, 50), i: rand() < 0.1 ? '' : text(), d: text(),
    s: int(rand, 1e9), q: text(), h: text(), ...(rand() < 0.1 ? { x: 1 as const } : {}),
  };
}

const BASE64_CHARS = [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/='];

/**
 * What a client sends back as feedback_data, given a token the service issued: the token itself, or
 * bit flips, truncations, extensions, case changes, other base64, or no base64 at all.
 */
export function feedbackTokenInput(rand: Rand, token: string): string {
  const r = rand();
  if (r < 0.1) return token;
  if (r < 0.45) return mutate(rand, token, () => pick(rand, BASE64_CHARS), 3);
  if (r < 0.55) return token.slice(0, int(rand, token.length));
  if (r < 0.6) return token + pick(rand, BASE64_CHARS).repeat(1 + int(rand, 8));
  if (r < 0.65) return rand() < 0.5 ? token.toLowerCase() : token.toUpperCase();
  if (r < 0.75) {
    // A forged payload in the right envelope: version byte, JSON, 16 bytes that are not the MAC.
    const json = Buffer.from(JSON.stringify({ ...feedbackPayload(rand), x: rand() < 0.5 ? 1 : undefined }));
    return Buffer.concat([Buffer.from([1]), json, Buffer.alloc(16, int(rand, 256))]).toString('base64');
  }
  if (r < 0.85) return Buffer.from(Array.from({ length: int(rand, 200) }, () => int(rand, 256))).toString('base64');
  if (r < 0.9) return 'A'.repeat(8190 + int(rand, 5));
  return Array.from({ length: int(rand, 60) }, () => randomCodeUnit(rand)).join('');
}

// ---------------------------------------------------------------- search-interface (widget) requests

export const WIDGET_ROUTES = [
  ['GET', 'search'], ['POST', 'search'], ['GET', 'autocomplete'], ['POST', 'feedback'], ['POST', 'support-forward'], ['GET', 'top-questions'],
  ['GET', 'summary'], ['POST', 'summary'], ['POST', 'chat'], ['GET', 'conversations'],
] as const;
/** Route names, as `npm run fuzz -- --targets widget:<name>` takes them. */
export type WidgetOp = (typeof WIDGET_ROUTES)[number][1];

const WIDGET_VALUES: unknown[] = [
  '', ' ', 'python', 'refund', '"quoted', '<script>alert(1)</script>', 'a'.repeat(501), 'ü🙂中文', '%00', '\u0000', '../../etc',
  0, -1, 1.5, 1e300, true, false, null, [], ['a'], {}, { a: 1 }, 'true', '1', 'desktop', 'mobile', 'tablet', 'click', 'view',
  'https://example.com/x', 'javascript:alert(1)', 'html', 'markdown', '2026-01-01', '2026-02-30', '+275760-09-13T00:00:00.000Z', '1970-01-01T00:00:00+99:99', 'not-a-date', '\ud800', '\u202eevil', 'e\u0301'.repeat(200),
];
const WIDGET_NAMES = [
  'uid', 'query', 'session-id', 'preview', 'device', 'limit', 'type', 'feedback_data', 'url', 'retrieval', 'reference_format',
  'conversation-id', 'from', 'to', 'extra', ...PROPERTY_NAMES,
];

/**
 * Values for the headers proxies write, as a client or a misbehaving proxy may send them: addresses of every
 * form, lists, ports, garbage, the very long. Behind a trusted proxy they reach the client rule
 * (api/middleware/client.ts) and every per-client limit.
 */
const PROXY_VALUES = [
  '203.0.113.7', '2001:db8::1', '2001:DB8:0:0:1::1', '::ffff:192.0.2.1', '::ffff:c000:201', '::1', '::', '0.0.0.0', '127.0.0.1',
  'fe80::1%eth0', '[2001:db8::1]:443', '192.0.2.1:8080', '999.1.1.1', '1.2.3', 'unknown', '_hidden', '', ' , ,', '1.2.3.4, 5.6.7.8',
  'for=192.0.2.60;proto=http;by=203.0.113.43', 'for="[2001:db8:cafe::17]:4711"', `${'10.0.0.1, '.repeat(300)}10.0.0.2`, 'a'.repeat(2000), '%00', '"quoted"',
];
const PROXY_HEADERS = ['x-forwarded-for', 'forwarded', 'x-real-ip', 'x-client-ip', 'true-client-ip', 'x-forwarded-proto', 'x-forwarded-host'];

/** One to three proxy headers with values from PROXY_VALUES (some joined into lists). */
export function proxyHeaders(rand: Rand): Record<string, string> {
  const out: Record<string, string> = {};
  for (let n = 1 + int(rand, 3); n > 0; n--) {
    const value = rand() < 0.3 ? `${pick(rand, PROXY_VALUES)}, ${pick(rand, PROXY_VALUES)}` : pick(rand, PROXY_VALUES);
    out[pick(rand, PROXY_HEADERS)] = value;
  }
  return out;
}

/** What a widget request is built from: the fuzz configuration and a token one of its searches issued. */
export interface WidgetFuzzContext {
  uid: string;
  feedback: string;
}

export interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  /** Bytes: a compressed body (`encodedBody`). */
  body?: string | Uint8Array<ArrayBuffer>;
  /** What the request was, for a failure message. */
  describe: string;
  /** A rule the answer must also keep, beyond a 2xx or a well-formed 4xx: what it broke, or null. */
  invariant?: (status: number, text: string) => string | null;
}

/**
 * One request to a search-interface route (`only` fixes the route; otherwise any): half start valid and get
 * one parameter garbled, the rest random throughout; a few bodies are broken JSON.
 */
export function widgetRequest(rand: Rand, ctx: WidgetFuzzContext, only?: WidgetOp): FuzzRequest {
  const routes = only ? WIDGET_ROUTES.filter(([, op]) => op === only) : WIDGET_ROUTES;
  const [method, op] = pick(rand, routes);
  const variant = rand() < 0.5 ? 'ui' : 'tool';
  // No prototype: a parameter named `__proto__` is then a parameter, in the query string and the JSON body alike.
  const params = Object.create(null) as Record<string, unknown>;
  if (rand() < 0.5) {
    Object.assign(params, {
      uid: ctx.uid, 'session-id': `s${int(rand, 7)}`, query: pick(rand, ['python lists', 'append', 'refund', 'how do I append to a list?']),
      type: 'click', url: 'https://example.com/help', feedback_data: ctx.feedback, from: '2026-01-01', to: pick(rand, ['2100-01-01', '2126-11-24T00:00:00Z']),
    });
    if (rand() < 0.7) params[pick(rand, WIDGET_NAMES)] = pick(rand, WIDGET_VALUES);
  } else {
    if (rand() < 0.8) params.uid = rand() < 0.8 ? ctx.uid : pick(rand, WIDGET_VALUES);
    for (const name of WIDGET_NAMES) if (rand() < 0.35) params[name] = pick(rand, WIDGET_VALUES);
  }
  if (op === 'feedback' && rand() < 0.5) params.feedback_data = feedbackTokenInput(rand, ctx.feedback);
  const scalar = Object.entries(params).filter(([, v]) => typeof v === 'string' || typeof v === 'number');
  const qs = new URLSearchParams(scalar.map(([k, v]) => [k, String(v)]));
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (rand() < 0.1) headers.accept = 'text/event-stream';
  if (rand() < 0.05) headers['x-session-id'] = String(pick(rand, WIDGET_VALUES)).replace(/[^\x20-\x7e]/g, '?');
  if (rand() < 0.25) Object.assign(headers, proxyHeaders(rand));
  const body = method === 'GET' ? undefined : rand() < 0.05 ? '{"broken": ' : JSON.stringify(params);
  const path = `/v1/${variant}/${op}${method === 'GET' ? `?${qs}` : ''}`;
  const describe = `${method} ${path.slice(0, 200)} ${body?.slice(0, 200) ?? ''}`;
  // Drawn last, so the inputs above stay what they were for a seed.
  if (body !== undefined && rand() < 0.15) {
    const encoded = encodedBody(rand, body);
    headers['content-encoding'] = encoded.encoding;
    return { method, path, headers, body: new Uint8Array(encoded.body), describe: `${describe} [Content-Encoding: ${encoded.encoding}, ${encoded.how}]` };
  }
  return { method, path, headers, body, describe };
}

const ENCODERS: Record<string, (b: Buffer) => Buffer> = { gzip: gzipSync, deflate: deflateSync, br: brotliCompressSync };

/**
 * A body under a Content-Encoding, well or badly: compressed as it says, cut short, a byte flipped, not compressed
 * at all, compressed another way (raw deflate, gzip twice), or under an encoding the service does not take.
 */
export function encodedBody(rand: Rand, text: string): { encoding: string; body: Buffer; how: string } {
  const plain = Buffer.from(text);
  const encoding = pick(rand, ['gzip', 'deflate', 'br', 'GZIP', 'identity', 'compress', 'gzip, br', 'x-fuzz']);
  const encode = ENCODERS[encoding.toLowerCase()] ?? ((b: Buffer) => b);
  const whole = encode(plain);
  const how = pick(rand, ['as it says', 'cut short', 'a byte flipped', 'not compressed', 'raw deflate', 'compressed twice']);
  switch (how) {
    case 'cut short':
      return { encoding, body: whole.subarray(0, int(rand, whole.length)), how };
    case 'a byte flipped': {
      const body = Buffer.from(whole);
      if (body.length) body[int(rand, body.length)] ^= 1 << int(rand, 8);
      return { encoding, body, how };
    }
    case 'not compressed':
      return { encoding, body: plain, how };
    case 'raw deflate':
      return { encoding, body: deflateRawSync(plain), how };
    case 'compressed twice':
      return { encoding, body: encode(whole), how };
    default:
      return { encoding, body: whole, how };
  }
}
