import { render } from 'preact';
import { CSS } from './styles';
import { ATTRIBUTES, readOptions } from './options';
import { Widget } from './widget';

let sheet: CSSStyleSheet | undefined;

/**
 * Styles through a constructable stylesheet, which a page's Content-Security-Policy without 'unsafe-inline'
 * styles still allows; a <style> element only where the browser has no adoptedStyleSheets.
 */
function adoptStyles(root: ShadowRoot): void {
  if ('adoptedStyleSheets' in root) {
    if (!sheet) {
      sheet = new CSSStyleSheet();
      sheet.replaceSync(CSS);
    }
    root.adoptedStyleSheets = [sheet];
  } else {
    (root as ShadowRoot).append(Object.assign(document.createElement('style'), { textContent: CSS }));
  }
}

/** Registers <quarry-search>; `defaultBase` is where the service is when no base-url attribute says otherwise. */
export function defineElement(defaultBase: string): void {
  if (customElements.get('quarry-search')) return;
  customElements.define('quarry-search', class extends HTMLElement {
    static observedAttributes = ATTRIBUTES;
    private mount?: HTMLElement;
    private queued = false;

    connectedCallback() {
      if (!this.mount) {
        const root = this.shadowRoot ?? this.attachShadow({ mode: 'open' });
        adoptStyles(root);
        root.append((this.mount = document.createElement('div')));
      }
      this.schedule();
    }

    // An element upgrades with one call per attribute: render once after all of them.
    attributeChangedCallback() {
      if (this.mount) this.schedule();
    }

    disconnectedCallback() {
      if (this.mount) render(null, this.mount);
    }

    private schedule() {
      if (this.queued) return;
      this.queued = true;
      queueMicrotask(() => {
        this.queued = false;
        if (!this.isConnected || !this.mount) return;
        const options = readOptions(this, defaultBase);
        if (!options.uid) {
          console.error('quarry-search: the uid attribute is required (data-uid on the script tag): copy it from the Install button of the configuration.');
        }
        render(options.uid
          ? <Widget key={`${options.uid} ${options.variant} ${options.baseUrl} ${options.mode}`} options={options} />
          : <div class="root"><p class="problem" role="alert">Search is not set up: this widget has no configuration uid.</p></div>, this.mount);
      });
    }
  });
}
