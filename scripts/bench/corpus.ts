import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface CorpusDoc {
  id: string;
  title: string;
  /** `<p>${text}</p>`, the HTML pushed as `content`. */
  content: string;
  /** JSON of `content`, serialised once so request bodies are cheap to build. */
  contentJson: string;
}

/** SciFact's corpus.jsonl (`{"_id","title","text"}` per line), relative to the project root. */
export function loadSciFact(projectRoot: string): CorpusDoc[] {
  const file = join(projectRoot, '..', 'shared', 'data', 'scifact', 'corpus.jsonl');
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => {
      const d = JSON.parse(l) as { _id: string; title: string; text: string };
      const content = `<p>${d.text}</p>`;
      return { id: String(d._id), title: d.title.trim() || `SciFact ${d._id}`, content, contentJson: JSON.stringify(content) };
    });
}

/** The body of a single-document PUT, built from pre-serialised parts. */
export function putBody(doc: CorpusDoc, title: string): string {
  return `{"title":${JSON.stringify(title)},"content":${doc.contentJson}}`;
}
