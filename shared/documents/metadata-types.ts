// Types only, with no Node imports, so the browser builds (web/) can name them.

/** SPEC.md's node: the JSON form of an HTML fragment. */
export interface MetadataNode {
  type: 'tag' | 'text';
  tag?: string;
  attr?: Record<string, string>;
  children?: MetadataNode[];
  data?: string;
}

/** One configured fragment selector and what it found on the page (`matches: []` when nothing). */
export interface MetadataEntry {
  selector: string;
  matches: MetadataNode[];
}

/** A document's metadata: its fragments, in the order the source lists its selectors. */
export type DocumentMetadata = MetadataEntry[];
