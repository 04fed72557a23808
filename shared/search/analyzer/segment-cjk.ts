/**
 * Word segmentation for scripts written without spaces.
 *
 * Chinese uses jieba's plain `cut` with its dictionary only (HMM off), measured with BM25 on
 * cmrc2018-zh (nDCG@10): cut without HMM 0.989, cut with HMM 0.982, cutForSearch 0.988/0.981,
 * CJK bigrams 0.982, single characters 0.950. The HMM glues unknown character sequences into
 * pseudo-words that a differently phrased question does not reproduce; without it unknown
 * words fall back to single characters, which still match. `cutForSearch` is not used either:
 * it adds overlapping sub-words (北京大学 -> 北京, 大学, 北京大学), which breaks
 * "position = array index" for phrase queries, for no gain.
 *
 * Japanese, Korean and Thai use ICU's word break iterator through Intl.Segmenter: Node's
 * full-ICU build ships dictionaries for Japanese and Thai; Korean words are delimited by
 * spaces, so ICU keeps each eojeol whole. The same ICU segmenter also handles runs of these
 * scripts that turn up inside an index of another language.
 */
import { createRequire } from 'node:module';
import type { Jieba as JiebaType } from '@node-rs/jieba';
import type { RunSegmenter } from './tokenize-words.js';

// Loading jieba's 5 MB dictionary takes a noticeable moment, so only Chinese indexes pay it,
// once per process. createRequire keeps the native addon out of every other import graph.
let jieba: JiebaType | undefined;
function loadJieba(): JiebaType {
  if (jieba === undefined) {
    const require = createRequire(import.meta.url);
    const { Jieba } = require('@node-rs/jieba') as typeof import('@node-rs/jieba');
    const { dict } = require('@node-rs/jieba/dict.js') as typeof import('@node-rs/jieba/dict.js');
    jieba = Jieba.withDict(dict);
  }
  return jieba;
}

// A segment counts as a word when it holds a letter or digit; jieba also returns
// punctuation (，。！) and spaces as "words".
const HAS_WORD_CHAR = /[\p{L}\p{N}]/u;

/** Chinese: jieba `cut`, dictionary only (see above for why the HMM is off). */
export const segmentChinese: RunSegmenter = (run) => {
  const words = loadJieba().cut(run, false);
  return words.filter((w) => HAS_WORD_CHAR.test(w));
};

const segmenters = new Map<string, Intl.Segmenter>();

/** A segmenter backed by ICU for `locale`; instances are cached because creating one is slow. */
export function icuSegmenter(locale: string): RunSegmenter {
  let segmenter = segmenters.get(locale);
  if (segmenter === undefined) {
    segmenter = new Intl.Segmenter(locale, { granularity: 'word' });
    segmenters.set(locale, segmenter);
  }
  const s = segmenter;
  return (run) => {
    const out: string[] = [];
    for (const part of s.segment(run)) {
      if (part.isWordLike && HAS_WORD_CHAR.test(part.segment)) out.push(part.segment);
    }
    return out;
  };
}
