import { api, seg } from '../api';
import { useAsync, type Async } from './async';
import { href } from '../router';

/** A configuration as the admin API returns it (api/services/configuration-service.ts `view`). */
export interface Configuration {
  uid: string;
  variant: 'tool' | 'ui';
  name: string;
  indexes: string[];
  result_count: number;
  allowed_origins: string[];
  top_questions: string[];
  autocomplete_min_queries: number;
  autocomplete_min_sessions: number;
  fusion: 'rrf' | 'weighted';
  keyword_weight: number;
  created_at: string;
  updated_at: string;
}

export const VARIANT_LABELS: Record<Configuration['variant'], string> = { tool: 'API Tool', ui: 'API UI' };

export const configPath = (uid: string) => `/v1/admin/configurations/${seg(uid)}`;

export function useConfiguration(uid: string): Async<Configuration> {
  return useAsync((signal) => api.get<Configuration>(configPath(uid), signal), [uid]);
}

export const CONFIG_TABS = [
  { tab: 'settings', label: 'Settings' },
  { tab: 'top-questions', label: 'Top questions' },
  { tab: 'instant-answers', label: 'Instant answers' },
  { tab: 'try', label: 'Try it' },
  { tab: 'install', label: 'Install' },
  { tab: 'insights', label: 'Insights' },
];

/** The tabs of one configuration; insights is a page of its own but reads as one more tab. */
export function ConfigTabs({ uid, current }: { uid: string; current: string }) {
  return (
    <nav class="tabs" aria-label="Configuration sections">
      {CONFIG_TABS.map((t) => (
        <a href={href(`/configurations/${seg(uid)}/${t.tab}`)} aria-current={t.tab === current ? 'page' : undefined}>{t.label}</a>
      ))}
    </nav>
  );
}
