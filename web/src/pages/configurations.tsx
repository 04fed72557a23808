import { useState } from 'preact/hooks';
import { api, seg } from '../api';
import { AsyncView, useAsync } from '../components/async';
import { VARIANT_LABELS, type Configuration } from '../components/config-common';
import { ConfigForm, NEW_CONFIG } from '../components/config-form';
import { PageHeader } from '../components/controls';
import { DataTable } from '../components/table';
import { href, navigate } from '../router';

/** Search configurations (API Tools and API UIs): the list and the create form. */
export default function Configurations() {
  const list = useAsync((signal) => api.all<{ configurations: Configuration[] }>('/v1/admin/configurations', 'configurations', signal), []);
  const [creating, setCreating] = useState(false);
  return (
    <section aria-labelledby="page-title">
      <PageHeader title="Search configurations">
        <button type="button" class="primary" aria-expanded={creating} aria-controls="create-configuration" onClick={() => setCreating(!creating)}>
          {creating ? 'Close form' : 'New configuration'}
        </button>
      </PageHeader>
      <p class="muted">
        A configuration is what a search box, an AI assistant or a tool calls: which indexes it searches, how many results it
        returns, which sites may call it. Its uid goes into the widget or the API calls (see its Install tab).
      </p>
      {creating && (
        <div id="create-configuration">
          <h2>Create a configuration</h2>
          <ConfigForm
            initial={NEW_CONFIG}
            mode="create"
            submitLabel="Create configuration"
            onSubmit={async (body) => {
              const c = await api.post<Configuration>('/v1/admin/configurations', body);
              navigate(`/configurations/${seg(c.uid)}/settings`);
            }}
          />
        </div>
      )}
      <AsyncView
        state={list}
        label="configurations"
        isEmpty={(d) => d.configurations.length === 0}
        empty={<span>No configurations yet. Create one with “New configuration”.</span>}
      >
        {(d) => (
          <DataTable
            caption="Configurations"
            rowKey={(c) => c.uid}
            rows={d.configurations}
            csvName="configurations.csv"
            columns={[
              { label: 'Name', render: (c) => <a href={href(`/configurations/${seg(c.uid)}/settings`)}>{c.name}</a>, csv: (c) => c.name },
              { label: 'Variant', csv: (c) => VARIANT_LABELS[c.variant] },
              { label: 'Uid', render: (c) => <span class="mono">{c.uid}</span>, csv: (c) => c.uid },
              { label: 'Searches', csv: (c) => c.indexes.join(', ') },
              { label: 'Results', numeric: true, csv: (c) => c.result_count },
              { label: 'Insights', render: (c) => <a href={href(`/configurations/${seg(c.uid)}/insights`)} aria-label={`Insights of ${c.name}`}>Insights</a> },
            ]}
          />
        )}
      </AsyncView>
    </section>
  );
}
