import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Client } from './client';
import type { WidgetOptions } from './options';

export interface WidgetContext {
  client: Client;
  options: WidgetOptions;
  /** Says `text` through the widget's polite live region. */
  announce(text: string): void;
  /** This page's origin is not allowed: every request would be refused, so the widget says it once. */
  refused(error: Error): void;
}

export const WidgetCtx = createContext<WidgetContext | null>(null);

export function useWidget(): WidgetContext {
  return useContext(WidgetCtx)!;
}
