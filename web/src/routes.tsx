import type { ComponentChildren } from 'preact';
import { lazyPage } from './components/lazy';

const Indexes = lazyPage(() => import('./pages/indexes'));
const IndexDetail = lazyPage<{ uid: string }>(() => import('./pages/index-detail'));
const DocumentView = lazyPage<{ uid: string; doc: string }>(() => import('./pages/document'));
const Keys = lazyPage(() => import('./pages/keys'));
const Operations = lazyPage(() => import('./pages/operations'));
const Configurations = lazyPage(() => import('./pages/configurations'));
const ConfigurationDetail = lazyPage<{ uid: string; tab: string }>(() => import('./pages/configuration-detail'));
const Sources = lazyPage(() => import('./pages/sources'));
const SourceDetail = lazyPage<{ uid: string }>(() => import('./pages/source-detail'));
const Insights = lazyPage<{ uid: string }>(() => import('./pages/insights'));

/** Every page of the app: the one place a path meets its component. First match wins. */
export const ROUTES: { path: string; render: (params: Record<string, string>) => ComponentChildren }[] = [
  { path: '/indexes', render: () => <Indexes /> },
  { path: '/indexes/:uid', render: (p) => <IndexDetail uid={p.uid} /> },
  { path: '/indexes/:uid/documents/:doc', render: (p) => <DocumentView uid={p.uid} doc={p.doc} /> },
  { path: '/sources', render: () => <Sources /> },
  { path: '/sources/:uid', render: (p) => <SourceDetail uid={p.uid} /> },
  { path: '/keys', render: () => <Keys /> },
  { path: '/operations', render: () => <Operations /> },
  { path: '/configurations', render: () => <Configurations /> },
  { path: '/configurations/:uid/insights', render: (p) => <Insights uid={p.uid} /> },
  { path: '/configurations/:uid', render: (p) => <ConfigurationDetail uid={p.uid} tab="settings" /> },
  { path: '/configurations/:uid/:tab', render: (p) => <ConfigurationDetail uid={p.uid} tab={p.tab} /> },
];

export const NAV = [
  { path: '/indexes', label: 'Indexes' },
  { path: '/sources', label: 'Sources' },
  { path: '/keys', label: 'API keys' },
  { path: '/configurations', label: 'Configurations' },
  { path: '/operations', label: 'Operations' },
];
