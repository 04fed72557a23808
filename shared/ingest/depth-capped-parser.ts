// htmlparser2's Parser, with elements nested deeper than MAX_HTML_DEPTH flattened into their
// ancestor at that depth: their tags (and attributes) are dropped, each leaving a space so words
// on either side stay apart, and their text is kept. Why: htmlparser2 keeps its open elements in an array it shifts and unshifts at
// the front, so each tag costs the nesting depth (100,000 nested divs took minutes), and every
// consumer that recurses over a DOM (serializers, text extraction, selectors) would overflow the
// stack on such a tree. Browsers cap the tree the same way (Blink flattens past 512 levels).
import { DomHandler, type Document } from 'domhandler';
import { Parser, type Handler, type ParserOptions } from 'htmlparser2';

/** Deepest element nesting kept; deeper elements lose their tags. */
export const MAX_HTML_DEPTH = 512;

const HANDLER_EVENTS = [
  'onparserinit', 'onreset', 'onend', 'onerror', 'onclosetag', 'onopentagname', 'onattribute', 'onopentag',
  'ontext', 'oncomment', 'oncdatastart', 'oncdataend', 'oncommentend', 'onprocessinginstruction',
] as const;

/**
 * Parses one string (pass it to the constructor and call `parse()`: tag names are read back from
 * it by position). Depth is counted from the opens and closes the parser reports, so implied
 * closes and void elements count as they really nest.
 */
export class DepthCappedParser extends Parser {
  private readonly depth: Depth;
  private readonly space: () => void;
  /** Tags dropped for depth, innermost last, and how many of each name are open. */
  private readonly dropped: string[] = [];
  private readonly droppedByName = new Map<string, number>();

  constructor(
    private readonly html: string,
    cbs: Partial<Handler>,
    options?: ParserOptions,
  ) {
    const depth: Depth = { open: 0, spaced: false };
    const handler = countingHandler(cbs, depth);
    super(handler, options);
    this.depth = depth;
    // One space for a run of dropped tags: 100,000 of them in a row are one word boundary.
    this.space = () => {
      if (!depth.spaced) handler.ontext?.(' ');
      depth.spaced = true;
    };
  }

  parse(): void {
    this.end(this.html);
  }

  private nameAt(start: number, endIndex: number): string {
    return this.html.slice(start, endIndex).toLowerCase();
  }

  override onopentagname(start: number, endIndex: number): void {
    const name = this.nameAt(start, endIndex);
    if (this.depth.open < MAX_HTML_DEPTH || this.isVoidElement(name)) return super.onopentagname(start, endIndex);
    // Not opened at all: with no open tag pending, the parser drops its attributes and its '>'.
    this.dropped.push(name);
    this.droppedByName.set(name, (this.droppedByName.get(name) ?? 0) + 1);
    this.space();
  }

  override onclosetag(start: number, endIndex: number): void {
    const name = this.nameAt(start, endIndex);
    if (!this.droppedByName.get(name)) {
      // Closes a kept element (or nothing): dropped ones inside it end with it.
      this.dropped.length = 0;
      this.droppedByName.clear();
      return super.onclosetag(start, endIndex);
    }
    // Each dropped tag is pushed and popped once: linear however the closes are nested.
    for (;;) {
      const top = this.dropped.pop()!;
      this.droppedByName.set(top, this.droppedByName.get(top)! - 1);
      if (top === name) break;
    }
    this.space();
    this.endIndex = endIndex;
    this.startIndex = endIndex + 1;
  }
}

/** Elements open now; whether nothing but a dropped tag's space was reported since the last drop. */
interface Depth {
  open: number;
  spaced: boolean;
}

function countingHandler(cbs: Partial<Handler>, depth: Depth): Partial<Handler> {
  const out: Partial<Handler> = {};
  for (const event of HANDLER_EVENTS) {
    const f = cbs[event] as ((...args: unknown[]) => void) | undefined;
    if (f) {
      (out as Record<string, unknown>)[event] = (...args: unknown[]) => {
        depth.spaced = false;
        f.apply(cbs, args);
      };
    }
  }
  const open = cbs.onopentag?.bind(cbs);
  const close = cbs.onclosetag?.bind(cbs);
  out.onopentag = (name, attribs, implied) => {
    depth.open++;
    depth.spaced = false;
    open?.(name, attribs, implied);
  };
  out.onclosetag = (name, implied) => {
    depth.open--;
    depth.spaced = false;
    close?.(name, implied);
  };
  return out;
}

/** parseDocument with the depth cap: the DOM is at most MAX_HTML_DEPTH elements deep (plus the root). */
export function parseCappedDocument(html: string, options?: ParserOptions): Document {
  const handler = new DomHandler(undefined, options);
  new DepthCappedParser(html, handler, options).parse();
  return handler.root;
}
