import { useState } from 'preact/hooks';
import { api } from '../api';
import { AsyncView, ErrorMessage, messageOf } from '../components/async';
import { ConfigTabs, CONFIG_TABS, VARIANT_LABELS, configPath, useConfiguration, type Configuration } from '../components/config-common';
import { ConfigBlockedSuggestions } from '../components/config-blocked-suggestions';
import { ConfigForm } from '../components/config-form';
import { ConfigInstall } from '../components/config-install';
import { ConfigInstantAnswers } from '../components/config-instant-answers';
import { ConfigTopQuestions } from '../components/config-top-questions';
import { ConfigTry } from '../components/config-try';
import { ConfirmDialog, PageHeader } from '../components/controls';
import { href, navigate } from '../router';

/** One configuration, a tab per sub-path: settings, top questions, instant answers, try it, install. */
export default function ConfigurationDetail({ uid, tab }: { uid: string; tab: string }) {
  const state = useConfiguration(uid);
  const label = CONFIG_TABS.find((t) => t.tab === tab)?.label;
  return (
    <section aria-labelledby="page-title">
      <PageHeader title={state.data ? `${state.data.name}${label ? ` · ${label}` : ''}` : 'Configuration'}>
        <a class="button small" href={href('/configurations')}>All configurations</a>
      </PageHeader>
      <AsyncView state={state} label="the configuration">
        {(c) => (
          <>
            <p class="muted">
              {VARIANT_LABELS[c.variant]} · uid <span class="mono">{c.uid}</span> · searches {c.indexes.join(', ')}
            </p>
            <ConfigTabs uid={uid} current={tab} />
            <TabBody config={c} tab={tab} onChange={state.reload} />
          </>
        )}
      </AsyncView>
    </section>
  );
}

function TabBody({ config, tab, onChange }: { config: Configuration; tab: string; onChange: () => void }) {
  switch (tab) {
    case 'settings':
      return <Settings config={config} onChange={onChange} />;
    case 'top-questions':
      return <ConfigTopQuestions config={config} onChange={onChange} />;
    case 'instant-answers':
      return <ConfigInstantAnswers config={config} />;
    case 'try':
      return <ConfigTry config={config} />;
    case 'install':
      return <ConfigInstall config={config} />;
    default:
      return <ErrorMessage message={`There is no tab '${tab}'. Choose one of the tabs above.`} />;
  }
}

function Settings({ config, onChange }: { config: Configuration; onChange: () => void }) {
  const [confirm, setConfirm] = useState(false);
  const [error, setError] = useState<string | null>(null);
  return (
    <>
      <h2>Settings</h2>
      <ConfigForm
        initial={config}
        mode="edit"
        submitLabel="Save settings"
        onSubmit={async (body) => {
          await api.patch(configPath(config.uid), body);
          onChange();
        }}
      />
      <ConfigBlockedSuggestions config={config} />
      <h2>Delete</h2>
      <div class="card">
        <p>Deleting the configuration removes its instant answers and every event recorded for it. Sites calling its uid get 404.</p>
        {error && <ErrorMessage message={error} />}
        <button type="button" class="danger" onClick={() => setConfirm(true)}>Delete configuration</button>
      </div>
      <ConfirmDialog
        open={confirm}
        title="Delete configuration"
        confirmLabel="Delete"
        onCancel={() => setConfirm(false)}
        onConfirm={async () => {
          setConfirm(false);
          try {
            await api.delete(configPath(config.uid));
            navigate('/configurations');
          } catch (err) {
            setError(messageOf(err));
          }
        }}
      >
        <p>Delete “{config.name}” with its instant answers and insights? This cannot be undone.</p>
      </ConfirmDialog>
    </>
  );
}
