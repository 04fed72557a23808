// The embeddable widget's entry: registers <quarry-search> and mounts one for the <script data-uid> tag.
import { defineElement } from './element';

// Only known while this script's own code runs, so read it first.
const script = document.currentScript as HTMLScriptElement | null;
defineElement(script?.src ? new URL(script.src).origin : location.origin);

/** `<script src=".../widget.js" data-uid="..." data-variant="..." defer>`: data-* attributes become the element's. */
function mountForScript(tag: HTMLScriptElement): void {
  const data = Array.from(tag.attributes).filter((a) => a.name.startsWith('data-'));
  if (data.length === 0) return;
  const el = document.createElement('quarry-search');
  for (const a of data) el.setAttribute(a.name.slice(5), a.value);
  // A script in <head> cannot hold visible content: the widget goes at the start of the body then.
  if (tag.parentElement && tag.parentElement !== document.head) tag.after(el);
  else document.body.prepend(el);
}

if (script) {
  if (document.body) mountForScript(script);
  else document.addEventListener('DOMContentLoaded', () => mountForScript(script), { once: true });
}
