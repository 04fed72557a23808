// Types for scripts/build-server.mjs (plain JavaScript, as it runs before anything is compiled), for the
// TypeScript that calls it: the benches.
export function serverIsStale(): boolean;
export function buildServer(): Promise<void>;
export function ensureServer(): Promise<boolean>;
