import { describe, expect, it } from 'vitest';
import { canonical, encodeFields } from '../../shared/documents/fields-hash.js';

/**
 * Stored documents keep the digest of their canonical JSON, and a push whose digest matches changes
 * nothing: the form must never drift, or every unchanged re-push after an upgrade would be indexed again.
 */
describe('canonical fields', () => {
  it('sorts keys at every depth, drops undefined members and keeps arrays in order', () => {
    const fields = {
      title: 'Tea', content: 'Grün "tea"\n', source_url: 'https://x.test/a', last_modified: '2024-05-01',
      extra: undefined, tags: ['b', 'a', null], n: { z: 1, a: [1.5, -0, true] },
    };
    expect(canonical(fields)).toBe(
      '{"content":"Grün \\"tea\\"\\n","last_modified":"2024-05-01","n":{"a":[1.5,0,true],"z":1},' +
      '"source_url":"https://x.test/a","tags":["b","a",null],"title":"Tea"}',
    );
  });

  it('gives the digest stored documents were written with, whatever the key order', () => {
    const a = encodeFields({ title: 'Tea', content: 'Grün "tea"\n', source_url: 'https://x.test/a', last_modified: '2024-05-01' });
    const b = encodeFields({ last_modified: '2024-05-01', source_url: 'https://x.test/a', content: 'Grün "tea"\n', title: 'Tea' });
    expect(a.hash).toBe('tDK7W_JyWdrsNj3MrCf94l4f6iVY4w2RvesCd8WXDG8');
    expect(b).toEqual(a);
  });
});
