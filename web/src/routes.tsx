import type { ComponentChildren } from 'preact';

/** Every page of the app: the one place a path meets its component. */
export const ROUTES: { path: string; render: (params: Record<string, string>) => ComponentChildren }[] = [];

export const NAV = [
  { path: '/indexes', label: 'Indexes' },
  { path: '/keys', label: 'API keys' },
  { path: '/configurations', label: 'Configurations' },
  { path: '/operations', label: 'Operations' },
];
