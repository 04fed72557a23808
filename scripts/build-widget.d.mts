// Types for scripts/build-widget.mjs (plain JavaScript, as it runs before anything is compiled), for the
// TypeScript that calls it: the widget's browser tests and bench:widget.
export interface WidgetSize { file: string; hash: string; bytes: number; gzip: number; budget_gzip: number }
export const WIDGET_BUDGET_GZIP: number;
export function widgetIsStale(): boolean;
export function buildWidget(options?: { minify?: boolean }): Promise<{ file: string; hash: string }>;
export function widgetSize(): WidgetSize;
export function ensureWidget(): Promise<void>;
