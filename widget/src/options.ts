export type Variant = 'tool' | 'ui';
export type Panel = 'search' | 'summary' | 'chat';

/** A <quarry-search> element's attributes, checked and defaulted. */
export interface WidgetOptions {
  uid: string;
  variant: Variant;
  /** Where the service is: the base-url attribute, else the origin the widget.js script came from. */
  baseUrl: string;
  placeholder: string;
  panels: Set<Panel>;
  mode: 'inline' | 'modal';
  /** Ctrl/Cmd + this key opens (modal) or focuses (inline) the box; "none" turns the shortcuts off. */
  shortcut: string;
  preview: boolean;
  supportUrl: string | null;
}

export const ATTRIBUTES = ['uid', 'variant', 'base-url', 'placeholder', 'panels', 'mode', 'shortcut', 'preview', 'support-url', 'theme'];
const PANELS: Panel[] = ['search', 'summary', 'chat'];

export function readOptions(el: Element, defaultBase: string): WidgetOptions {
  const attr = (name: string) => el.getAttribute(name)?.trim() ?? '';
  const listed = attr('panels').split(',').map((p) => p.trim()).filter((p): p is Panel => PANELS.includes(p as Panel));
  return {
    uid: attr('uid'),
    variant: attr('variant') === 'tool' ? 'tool' : 'ui',
    baseUrl: (attr('base-url') || defaultBase).replace(/\/+$/, ''),
    placeholder: attr('placeholder') || 'Search…',
    panels: new Set(listed.length ? listed : PANELS),
    mode: attr('mode') === 'modal' ? 'modal' : 'inline',
    shortcut: (attr('shortcut') || 'k').toLowerCase(),
    preview: attr('preview') === 'true',
    supportUrl: safeUrl(attr('support-url')),
  };
}

/** Only http(s) links leave the widget: a javascript: support link would run on the host page. */
export function safeUrl(value: string | undefined): string | null {
  if (!value) return null;
  try {
    const url = new URL(value, location.href);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}
