/** A version's outcome: the version number, or that the document was deleted. */
export type Version = number | 'deleted';

export interface DocState {
  n: number;
  /** Versions sent so far; the next one gets this number. */
  sent: number;
  /** The last version the service promised (204/200 accepted), or null if none yet. */
  promised: Version | null;
  /** Writes after the promised one whose outcome is unknown (no answer, 5xx): the service may hold any of them. */
  unknown: Version[];
  /** Writes that hung: still in flight in the service, they may land after later writes. */
  hung: Version[];
  /** Each write and its answer (`v1 put 204 06:12:03.456`): what a report naming this document tells. */
  writes: string[];
}

export const WORDS = [
  'river', 'garden', 'engine', 'market', 'planet', 'winter', 'silver', 'harbor', 'forest', 'signal', 'bridge', 'castle',
  'meadow', 'rocket', 'violin', 'desert', 'island', 'lantern', 'mirror', 'orchard', 'pepper', 'quarry', 'saddle', 'tunnel',
];

export const uidOf = (n: number) => `doc-${n}`;
/** A word unique to one version of one document: what search is asked for to see which version is live. */
export const tokenOf = (n: number, v: number) => `t${n}x${v}`;
export const TOKEN_RE = /\bt(\d+)x(\d+)\b/;

/**
 * What the load pushed and what the service answered, per document: the checks compare the
 * service's documents and search results with it. Writes to one document are never in flight
 * together (except hung ones), so "latest" is the order the load sent them in.
 */
export class Ledger {
  readonly docs: DocState[] = [];
  /** Documents written since the last `takeTouched()`: what a scenario's search check covers. */
  private touched = new Set<number>();
  private readonly busy = new Set<number>();

  constructor(private readonly rand: () => number) {}

  /** A document not yet written, reserved for one write. */
  fresh(): DocState {
    const d: DocState = { n: this.docs.length, sent: 0, promised: null, unknown: [], hung: [], writes: [] };
    this.docs.push(d);
    this.busy.add(d.n);
    return d;
  }

  /** An existing document no write is in flight for, reserved; null if none found quickly. */
  existing(): DocState | null {
    if (this.docs.length === 0) return null;
    for (let tries = 0; tries < 20; tries++) {
      const d = this.docs[Math.floor(this.rand() * this.docs.length)];
      if (!this.busy.has(d.n)) {
        this.busy.add(d.n);
        return d;
      }
    }
    return null;
  }

  /** The body of the next version of `d`, and that version's number. */
  nextBody(d: DocState): { v: number; body: { title: string; content: string; source_url: string } } {
    const v = d.sent++;
    const words = Array.from({ length: 6 }, () => WORDS[Math.floor(this.rand() * WORDS.length)]).join(' ');
    return {
      v,
      body: { title: `Chaos ${d.n}`, content: `<p>${tokenOf(d.n, v)} ${words}.</p>`, source_url: `https://chaos.example/${uidOf(d.n)}` },
    };
  }

  /** The write of `v` was answered: the service promised it. `answer`: the request and what it got. */
  promise(d: DocState, v: Version, answer: string): void {
    note(d, v, answer);
    d.promised = v;
    d.unknown = [];
  }

  /** The write of `v` got no usable answer; `hung` if it was still in flight when the client gave up. */
  unsure(d: DocState, v: Version, hung: boolean, answer: string): void {
    note(d, v, answer);
    (hung ? d.hung : d.unknown).push(v);
  }

  release(d: DocState): void {
    this.busy.delete(d.n);
    this.touched.add(d.n);
  }

  takeTouched(): DocState[] {
    const out = [...this.touched].map((n) => this.docs[n]);
    this.touched = new Set();
    return out;
  }

  /** What the service may hold for `d` now: a version, or `absent` (deleted or never created). */
  allowed(d: DocState): Set<number | 'absent'> {
    const out = new Set<number | 'absent'>();
    for (const v of [...d.unknown, ...d.hung, d.promised ?? 'deleted']) out.add(v === 'deleted' ? 'absent' : v);
    return out;
  }
}

function note(d: DocState, v: Version, answer: string): void {
  d.writes.push(`${v === 'deleted' ? 'delete' : `v${v}`} ${answer} ${new Date().toISOString().slice(11, 23)}`);
}
