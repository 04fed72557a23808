import { describe, expect, it } from 'vitest';
import { BoostingSyntaxError, parseBoosting } from '../../shared/search/query/qf-parser.js';

describe('boosting (Solr qf)', () => {
  it.each([
    ['title^2 body^1', [{ field: 'title', boost: 2 }, { field: 'body', boost: 1 }]],
    ['title', [{ field: 'title', boost: 1 }]],
    ['  title^1.5   text  ', [{ field: 'title', boost: 1.5 }, { field: 'text', boost: 1 }]],
    ['a^0 b^.5 c^2e1', [{ field: 'a', boost: 0 }, { field: 'b', boost: 0.5 }, { field: 'c', boost: 20 }]],
    ['title^1\tbody^1\nsummary', [{ field: 'title', boost: 1 }, { field: 'body', boost: 1 }, { field: 'summary', boost: 1 }]],
  ])('%j', (input, expected) => {
    expect(parseBoosting(input)).toEqual(expected);
  });

  it.each([
    ['', 0, /expected a field name such as title\^2 but found end of input/],
    ['title^', 6, /expected a number after 'title\^' but found end of input/],
    ['title^x', 6, /found 'x'/],
    ['title^2body', 7, /expected whitespace or '\^' after a field but found 'b'/],
    ['title^-1', 6, /expected a number/],
    ['ti-tle', 2, /found '-'/],
    ['title body title^2', 11, /'title' repeats/],
    ['2title', 0, /expected a field name/],
  ])('rejects %j at position %i', (input, position, message) => {
    let error: unknown;
    try {
      parseBoosting(input);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(BoostingSyntaxError);
    expect((error as BoostingSyntaxError).position).toBe(position);
    expect((error as Error).message).toMatch(message);
  });
});
