import { describe, expect, it } from 'vitest';
import { encodeMetadata, hashWithMetadata, MAX_METADATA_BYTES, type MetadataNode } from '../../shared/documents/document-metadata.js';

describe('encodeMetadata', () => {
  it('gives the same JSON for the same fragments whatever their key order, keeping only SPEC keys', () => {
    const a = encodeMetadata('p', [{ selector: 'h1', matches: [{ type: 'tag', tag: 'h1', attr: { id: 'x' }, children: [{ type: 'text', data: 'Hi' }] }] }]);
    const b = encodeMetadata('p', [{ matches: [{ children: [{ data: 'Hi', type: 'text', extra: 1 }], attr: { id: 'x' }, tag: 'h1', type: 'tag' }], selector: 'h1', note: 'dropped' }]);
    expect(b).toBe(a);
    expect(JSON.parse(a)).toEqual([{ selector: 'h1', matches: [{ type: 'tag', tag: 'h1', attr: { id: 'x' }, children: [{ type: 'text', data: 'Hi' }] }] }]);
    expect(encodeMetadata('p', [{ selector: '.none', matches: [] }])).toBe('[{"selector":".none","matches":[]}]');
  });

  it('keeps attributes named like Object.prototype members as plain attributes', () => {
    const metadata = JSON.parse('[{"selector":"a","matches":[{"type":"tag","tag":"a","attr":{"__proto__":"p","constructor":"c","toString":"t","valueOf":"v","hasOwnProperty":"h"}}]}]');
    const attr = JSON.parse(encodeMetadata('p', metadata))[0].matches[0].attr;
    expect(Object.keys(attr)).toEqual(['__proto__', 'constructor', 'toString', 'valueOf', 'hasOwnProperty']);
    expect(Object.values(attr)).toEqual(['p', 'c', 't', 'v', 'h']);
  });

  it('refuses what is not SPEC shape, naming the document and the place', () => {
    const bad: [unknown, string][] = [
      [{}, 'must be a list'],
      [[{ selector: 1, matches: [] }], 'entry 0 must be {selector: string, matches: [nodes]}'],
      [[{ selector: 'a', matches: [{ type: 'text' }] }], 'entry 0 match 0 is a text node without string data'],
      [[{ selector: 'a', matches: [{ type: 'tag', tag: 'a', attr: { href: 1 } }] }], "attribute 'href' must be a string"],
      [[{ selector: 'a', matches: [{ type: 'tag', tag: 'a', children: [{ type: 'comment' }] }] }], "entry 0 match 0 child 0 must have type 'tag'"],
    ];
    for (const [metadata, message] of bad) {
      expect(() => encodeMetadata('page-1', metadata)).toThrow(message);
      expect(() => encodeMetadata('page-1', metadata)).toThrow("Document 'page-1' has invalid metadata");
    }
  });

  it('refuses trees nested past 200 levels and JSON over the size limit', () => {
    let deep: MetadataNode = { type: 'text', data: 'x' };
    for (let i = 0; i < 201; i++) deep = { type: 'tag', tag: 'div', children: [deep] };
    expect(() => encodeMetadata('p', [{ selector: 'div', matches: [deep] }])).toThrow('nests deeper than 200 levels');
    const fits = 'x'.repeat(MAX_METADATA_BYTES - 100);
    expect(() => encodeMetadata('p', [{ selector: 'p', matches: [{ type: 'text', data: fits }] }])).not.toThrow();
    expect(() => encodeMetadata('p', [{ selector: 'p', matches: [{ type: 'text', data: `${fits}${'y'.repeat(100)}` }] }])).toThrow('over the limit');
  });

  it('makes the document hash depend on the fragments', () => {
    expect(hashWithMetadata('h', '[]')).toBe(hashWithMetadata('h', '[]'));
    expect(hashWithMetadata('h', '[]')).not.toBe(hashWithMetadata('h', '[{"selector":"a","matches":[]}]'));
    expect(hashWithMetadata('h', '[]')).not.toBe('h');
  });
});
