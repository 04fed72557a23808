// Types for scripts/build-web.mjs (plain JavaScript, as it runs before anything is compiled), for the
// TypeScript that calls it: the end-to-end tests and bench:web.
export interface DownloadFile { file: string; bytes: number; gzip: number }
export function webIsStale(): boolean;
export function buildWeb(options?: { minify?: boolean }): Promise<{ html: string }>;
export function initialDownload(): { files: DownloadFile[]; bytes: number; gzip: number };
export function ensureWeb(): Promise<void>;
