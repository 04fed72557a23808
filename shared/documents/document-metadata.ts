import { createHash } from 'node:crypto';
import { AppError } from '../errors/app-error.js';

export type { DocumentMetadata, MetadataEntry, MetadataNode } from './metadata-types.js';
import type { DocumentMetadata, MetadataEntry, MetadataNode } from './metadata-types.js';
import { keyedByUser } from '../records/own.js';

/**
 * Every search result of a page carries its metadata, so it is bounded like a page's content
 * is: 256 KiB of JSON holds thousands of fragment nodes.
 */
export const MAX_METADATA_BYTES = 256 * 1024;
/** Deeper trees are refused rather than walked: no real fragment nests this far. */
const MAX_DEPTH = 200;

/**
 * Checks metadata against SPEC's shape and rebuilds it with only the known keys in a fixed order,
 * so the JSON is canonical (identical fragments give identical JSON, and the document hash with it).
 */
export function encodeMetadata(uid: string, metadata: unknown): string {
  const fail = (why: string): never => {
    throw new AppError('invalid_document', `Document '${uid}' has invalid metadata: ${why}`);
  };
  if (!Array.isArray(metadata)) fail('it must be a list of {selector, matches} entries');
  const entries = (metadata as unknown[]).map((e, i): MetadataEntry => {
    if (!isObject(e) || typeof e.selector !== 'string' || !Array.isArray(e.matches)) {
      return fail(`entry ${i} must be {selector: string, matches: [nodes]}`);
    }
    return { selector: e.selector, matches: e.matches.map((n, j) => node(n, `entry ${i} match ${j}`, 0, fail)) };
  });
  const json = JSON.stringify(entries);
  const bytes = Buffer.byteLength(json);
  if (bytes > MAX_METADATA_BYTES) {
    fail(`${bytes} bytes of fragments, over the limit of ${MAX_METADATA_BYTES}; narrow the source's fragment selectors`);
  }
  return json;
}

function node(n: unknown, where: string, depth: number, fail: (why: string) => never): MetadataNode {
  if (depth >= MAX_DEPTH) fail(`${where} nests deeper than ${MAX_DEPTH} levels`);
  if (!isObject(n)) return fail(`${where} must be a node object`);
  if (n.type === 'text') {
    if (typeof n.data !== 'string') fail(`${where} is a text node without string data`);
    return { type: 'text', data: n.data as string };
  }
  if (n.type !== 'tag' || typeof n.tag !== 'string') return fail(`${where} must have type 'tag' (with a tag name) or 'text'`);
  const attr = keyedByUser<string>();
  if (n.attr !== undefined) {
    if (!isObject(n.attr)) fail(`${where} attr must be an object of strings`);
    for (const [k, v] of Object.entries(n.attr as Record<string, unknown>)) {
      if (typeof v !== 'string') fail(`${where} attribute '${k}' must be a string`);
      attr[k] = v as string;
    }
  }
  if (n.children !== undefined && !Array.isArray(n.children)) fail(`${where} children must be a list of nodes`);
  const children = ((n.children ?? []) as unknown[]).map((c, i) => node(c, `${where} child ${i}`, depth + 1, fail));
  return { type: 'tag', tag: n.tag, attr, children };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A document's hash covering its metadata too: new fragments on an unchanged page are a change. */
export function hashWithMetadata(fieldsHash: string, metadataJson: string): string {
  return createHash('sha256').update(fieldsHash).update('\u0000').update(metadataJson).digest('base64url');
}
