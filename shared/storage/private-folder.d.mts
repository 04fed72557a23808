// Types for private-folder.mjs (plain JavaScript, shared with `npm start`).
export interface ModeChange { path: string; from: string; to: string }
export interface ModeFailure { path: string; mode: string; error: string }
export const PRIVATE_UMASK: number;
export function octal(mode: number): string;
export function makeFolderPrivate(dir: string): { changed: ModeChange[]; failed: ModeFailure[] };
export function describeChanges(changed: ModeChange[]): string;
