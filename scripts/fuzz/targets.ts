// What is fuzzed and what counts as a failure. In-process targets call a pure function and accept its
// result or its own syntax error; HTTP targets accept a 2xx or a 4xx with the spec's {code, message}.
import { isDeepStrictEqual } from 'node:util';
import { FeedbackDataError, FeedbackSigner, type FeedbackPayload } from '../../shared/feedback/feedback-token.js';
import { htmlToSections } from '../../shared/ingest/html-to-sections.js';
import { leavesOf, toLuceneString } from '../../shared/search/query/fq-ast.js';
import { FilterSyntaxError, parseFilter } from '../../shared/search/query/fq-parser.js';
import { BoostingSyntaxError, parseBoosting } from '../../shared/search/query/qf-parser.js';
import {
  contentFieldsInput, contentFilterInput, feedbackPayload, feedbackTokenInput, fqInput, htmlInput, qfInput, widgetRequest, WIDGET_ROUTES,
  type FuzzRequest, type Rand, type WidgetFuzzContext, type WidgetOp,
} from './generators.js';

/**
 * An input's outcome: an accepted kind (counted by label) or a failure: `crash` (an exception other than the
 * function's own error, a broken invariant, no HTTP answer), `5xx`, or `malformed` (a 4xx without {code, message}).
 */
export type Outcome = { label: string } | { fail: 'crash' | '5xx' | 'malformed'; detail: string };
const crash = (detail: string): Outcome => ({ fail: 'crash', detail });

export interface PureTarget<I = unknown> {
  kind: 'pure';
  name: string;
  what: string;
  input(rand: Rand, index: number): I;
  check(input: I): Outcome;
  /** The input, short, for a report line. */
  show(input: I): string;
}

export interface HttpTarget {
  kind: 'http';
  name: string;
  what: string;
  request(rand: Rand, index: number, ctx: HttpFuzzContext): FuzzRequest;
}

export interface HttpFuzzContext extends WidgetFuzzContext {
  /** A key with read on the fuzz indexes (the content search and conversation listing need one). */
  key: string;
}

export type Target = PureTarget<any> | HttpTarget;

const short = (s: string, n = 160) => JSON.stringify(s.length > n ? `${s.slice(0, n)}…(${s.length} chars)` : s);
const errorText = (e: unknown) => `threw ${(e as Error)?.name}: ${(e as Error)?.message}`;

const fq: PureTarget<string> = {
  kind: 'pure',
  name: 'fq',
  what: 'the Solr filter parser (shared/search/query/fq-parser.ts): a tree, or a FilterSyntaxError with a message and a position inside the input',
  input: fqInput,
  show: short,
  check(input) {
    try {
      const node = parseFilter(input, { defaultField: 'text', defaultOperator: input.length % 2 ? 'AND' : 'OR' });
      toLuceneString(node);
      leavesOf(node);
      return { label: 'parsed' };
    } catch (e) {
      if (!(e instanceof FilterSyntaxError)) return crash(errorText(e));
      if (!e.message || !e.expected) return crash('FilterSyntaxError without a message');
      if (!(e.position >= 0 && e.position <= input.length)) return crash(`position ${e.position} outside [0, ${input.length}]`);
      return { label: 'FilterSyntaxError' };
    }
  },
};

const qf: PureTarget<string> = {
  kind: 'pure',
  name: 'qf',
  what: 'the boosting (DisMax qf) parser (shared/search/query/qf-parser.ts): fields with finite boosts ≥ 0, or a BoostingSyntaxError at a position inside the input',
  input: qfInput,
  show: short,
  check(input) {
    try {
      const boosts = parseBoosting(input);
      if (boosts.length === 0) return crash('no field and no error');
      for (const b of boosts) {
        if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(b.field) || !Number.isFinite(b.boost) || b.boost < 0) return crash(`bad boost ${JSON.stringify(b)}`);
      }
      if (new Set(boosts.map((b) => b.field)).size !== boosts.length) return crash('a field twice');
      return { label: 'parsed' };
    } catch (e) {
      if (!(e instanceof BoostingSyntaxError)) return crash(errorText(e));
      if (!(e.position >= 0 && e.position <= input.length)) return crash(`position ${e.position} outside [0, ${input.length}]`);
      return { label: 'BoostingSyntaxError' };
    }
  },
};

// What the stores downstream refuse or mangle: C0 controls (but tab and line breaks) and lone surrogates.
const UNSAFE = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

const html: PureTarget<{ html: string; max?: number }> = {
  kind: 'pure',
  name: 'html',
  what: 'the HTML sectioner (shared/ingest/html-to-sections.ts): numbered sections of safe text, none longer than the limit',
  input: (rand) => ({ html: htmlInput(rand), max: rand() < 0.3 ? 20 + Math.floor(rand() * 500) : undefined }),
  show: (i) => `${i.max ? `max ${i.max} ` : ''}${short(i.html)}`,
  check({ html: page, max }) {
    let sections;
    try {
      sections = htmlToSections(page, max ? { maxSectionChars: max } : undefined);
    } catch (e) {
      return crash(errorText(e));
    }
    if (!Array.isArray(sections)) return crash('not an array');
    for (const [n, s] of sections.entries()) {
      if (s.ord !== n) return crash(`section ${n} has ord ${s.ord}`);
      if (typeof s.title !== 'string' || typeof s.text !== 'string' || !(s.anchor === null || typeof s.anchor === 'string')) return crash(`section ${n} malformed`);
      if (UNSAFE.test(s.title) || UNSAFE.test(s.text)) return crash(`section ${n} holds a control character or lone surrogate`);
      if (s.text.length > (max ?? 4000)) return crash(`section ${n} is ${s.text.length} characters, over ${max ?? 4000}`);
    }
    return { label: sections.length ? 'sections' : 'empty' };
  },
};

const signer = new FeedbackSigner('fuzz-secret-0123456789');
const feedback: PureTarget<{ payload: FeedbackPayload; token: string; sent: string }> = {
  kind: 'pure',
  name: 'feedback',
  what: "feedback_data (shared/feedback/feedback-token.ts): the issued token verifies to its payload; anything else is a FeedbackDataError, never another payload",
  input(rand) {
    const payload = feedbackPayload(rand);
    const token = signer.sign(payload);
    return { payload, token, sent: feedbackTokenInput(rand, token) };
  },
  show: (i) => short(i.sent),
  check({ payload, token, sent }) {
    try {
      FeedbackSigner.claimsPreview(sent);
      const got = signer.verify(sent);
      // Base64 has spellings that decode to the same bytes (the unused bits of the last character): the same token.
      if (!Buffer.from(sent, 'base64').equals(Buffer.from(token, 'base64'))) return crash(`accepted a token other than the one issued: ${JSON.stringify(got)}`);
      if (!isDeepStrictEqual(JSON.parse(JSON.stringify(payload)), got)) return crash(`verified to another payload: ${JSON.stringify(got)}`);
      return { label: 'verified' };
    } catch (e) {
      if (!(e instanceof FeedbackDataError) || !e.message) return crash(errorText(e));
      return { label: 'refused' };
    }
  },
};

const contentSearch: HttpTarget = {
  kind: 'http',
  name: 'content-search',
  what: 'POST /v1/content/search with fuzzed filters and projections over an index of every field type, some fields named like Object.prototype members',
  request(rand, index, ctx) {
    const { filter, undeclared: notFiltered } = contentFilterInput(rand, index);
    const { fields, undeclared: notProjected } = contentFieldsInput(rand);
    const body = JSON.stringify({ index_uid: 'fuzz', query: 'trail', boosting: 'title', filter, fields });
    // A field the index lacks, named like an Object.prototype member, is unknown: found on a prototype it
    // answered 500 or matched every document. The filter is checked first, so only its 400 must name it.
    const undeclared = notFiltered ?? notProjected;
    const invariant = undeclared === undefined ? undefined : (status: number, text: string) =>
      status === 400 && (notFiltered === undefined || text.includes(`'${notFiltered}'`)) ? null : `${undeclared} is not a field of the index, yet the answer was ${status} ${text.slice(0, 200)}`;
    return {
      method: 'POST', path: '/v1/content/search', headers: { 'content-type': 'application/json', 'x-api-key': ctx.key }, body,
      describe: `filter ${short(filter)} fields ${JSON.stringify(fields)}`, invariant,
    };
  },
};

const WIDGET_OPS = [...new Set(WIDGET_ROUTES.map(([, op]) => op))] as WidgetOp[];
const widgetTargets: HttpTarget[] = WIDGET_OPS.map((op) => ({
  kind: 'http',
  name: `widget:${op}`,
  what: `${WIDGET_ROUTES.filter(([, o]) => o === op).map(([m]) => m).join('/')} /v1/{ui,tool}/${op} with fuzzed parameters (query string and JSON body)`,
  request(rand, _index, ctx) {
    const r = widgetRequest(rand, ctx, op);
    // The listing takes a read key; most requests bring one, so the fuzz gets past authentication.
    if (op === 'conversations' && rand() < 0.8) r.headers['x-api-key'] = ctx.key;
    return r;
  },
}));

export const TARGETS: Target[] = [fq, qf, html, feedback, contentSearch, ...widgetTargets];

export function targetNamed(name: string): Target {
  const t = TARGETS.find((x) => x.name === name);
  if (!t) throw new Error(`unknown fuzz target ${name}; known: ${TARGETS.map((x) => x.name).join(', ')}`);
  return t;
}

/**
 * Judges an HTTP answer: a 2xx, or a 4xx whose body is {code: status, message}; an event stream must not
 * carry an `error` event of a 5xx, and its error events carry {code, message} too.
 */
export function judgeAnswer(status: number, contentType: string, text: string): Outcome {
  if (status >= 500) return { fail: '5xx', detail: `${status} ${text.slice(0, 300)}` };
  if (status >= 400) {
    let body: { code?: unknown; message?: unknown };
    try {
      body = JSON.parse(text);
    } catch {
      return { fail: 'malformed', detail: `${status} without a JSON body: ${text.slice(0, 200)}` };
    }
    if (body.code !== status || typeof body.message !== 'string' || !body.message) return { fail: 'malformed', detail: `${status} body is not {code, message}: ${text.slice(0, 200)}` };
    return { label: String(status) };
  }
  if (contentType.includes('text/event-stream')) {
    for (const m of text.matchAll(/^event: error\ndata: (.*)$/gm)) {
      const e = JSON.parse(m[1]) as { code?: number; message?: string };
      if (typeof e.code !== 'number' || !e.message) return { fail: 'malformed', detail: `error event without {code, message}: ${m[1]}` };
      if (e.code >= 500) return { fail: '5xx', detail: `error event ${m[1]}` };
      return { label: `${status} stream error ${e.code}` };
    }
    if (!/^event: done$/m.test(text)) return crash(`stream ended without done: ${text.slice(-200)}`);
  }
  return { label: String(status) };
}
