import { describe, expect, it } from 'vitest';
import { httpUrl } from '../../shared/text/http-url.js';

describe('httpUrl: only absolute http(s) links reach a search-interface response', () => {
  it.each([
    ['https://docs.example.com/pip#pip', 'https://docs.example.com/pip#pip'],
    ['HTTP://EXAMPLE.COM/A', 'HTTP://EXAMPLE.COM/A'],
    ['http://example.com', 'http://example.com'],
    // What a browser strips is not passed on.
    [' https://example.com/x ', 'https://example.com/x'],
    ['htt\tps://example.com/x', 'https://example.com/x'],
  ])('keeps %j', (url, kept) => {
    expect(httpUrl(url)).toBe(kept);
  });

  it.each([
    'javascript:alert(1)', '  JaVaScRiPt:alert(1)', 'java\tscript:alert(1)', 'java\nscript:alert(1)', '\u0001javascript:alert(1)',
    'data:text/html,<script>alert(1)</script>', 'vbscript:msgbox(1)', 'file:///etc/passwd', 'mailto:a@example.com',
    '/relative', '//evil.example/x', 'http:evil.example', 'https://', 'http://', '', 'not a url',
  ])('drops %j', (url) => {
    expect(httpUrl(url)).toBeUndefined();
  });

  it('drops what is not a string', () => {
    for (const v of [undefined, null, 42, {}, ['https://example.com']]) expect(httpUrl(v)).toBeUndefined();
  });
});
