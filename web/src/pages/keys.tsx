import { useEffect, useRef, useState } from 'preact/hooks';
import { api, seg } from '../api';
import { AsyncView, ErrorMessage, messageOf, useAsync } from '../components/async';
import { ConfirmDialog, CopyButton, Field, PageHeader, formatDate } from '../components/controls';
import type { IndexView } from '../components/index-types';
import { DataTable } from '../components/table';

type Permission = 'read' | 'write' | 'admin';
const PERMISSIONS: { value: Permission; label: string; hint: string }[] = [
  { value: 'read', label: 'read', hint: 'search, read documents' },
  { value: 'write', label: 'write', hint: 'push and delete documents, define indexes' },
  { value: 'admin', label: 'admin', hint: 'everything, including keys and this app' },
];

interface KeyView {
  id: string;
  name: string;
  prefix: string;
  permissions: string[];
  indexes: string[] | null;
  created_at: string;
  revoked_at: string | null;
  last_used_at?: string | null;
}

interface CreatedKey {
  id: string;
  name: string;
  key: string;
  permissions: string[];
  indexes: string[] | null;
}

export default function KeysPage() {
  const keys = useAsync((signal) => api.all<{ keys: KeyView[] }>('/v1/admin/keys', 'keys', signal), []);
  const [creating, setCreating] = useState(false);
  // The secret lives in this component only: leaving the page or reloading it forgets it, as the server does.
  const [created, setCreated] = useState<CreatedKey | null>(null);
  const [revoking, setRevoking] = useState<KeyView | null>(null);
  const [revokeError, setRevokeError] = useState<string | null>(null);
  const [revoked, setRevoked] = useState<string | null>(null);

  async function revoke(k: KeyView) {
    setRevoking(null);
    setRevokeError(null);
    try {
      await api.delete(`/v1/admin/keys/${seg(k.id)}`);
      setRevoked(k.name);
      keys.reload();
    } catch (err) {
      setRevokeError(messageOf(err));
    }
  }

  // Active keys first, newest first within each group.
  const sorted = (list: KeyView[]) =>
    [...list].sort((a, b) => Number(a.revoked_at !== null) - Number(b.revoked_at !== null) || b.created_at.localeCompare(a.created_at));

  return (
    <section aria-labelledby="page-title">
      <PageHeader title="API keys">
        <button type="button" class="primary" aria-expanded={creating} aria-controls="create-key" onClick={() => setCreating(!creating)}>
          {creating ? 'Close the form' : 'New key'}
        </button>
      </PageHeader>
      {created && <SecretOnce created={created} onDone={() => setCreated(null)} />}
      {creating && (
        <div id="create-key">
          <CreateKeyForm
            onCreated={(k) => {
              setCreated(k);
              setCreating(false);
              setRevoked(null);
              keys.reload();
            }}
          />
        </div>
      )}
      <div role="status">{revoked && <p class="notice">Key “{revoked}” revoked: requests with it are now refused.</p>}</div>
      {revokeError && <ErrorMessage message={revokeError} />}
      <AsyncView state={keys} label="API keys" isEmpty={(d) => d.keys.length === 0} empty={<p>No API keys yet. Create one with <strong>New key</strong>.</p>}>
        {(d) => (
          <DataTable
            caption="API keys"
            csvName="api-keys.csv"
            rowKey={(k) => k.id}
            rows={sorted(d.keys)}
            columns={[
              { label: 'Name', csv: (k) => k.name },
              { label: 'Key starts with', render: (k) => <code>{k.prefix}…</code>, csv: (k) => k.prefix },
              { label: 'Permissions', render: (k) => k.permissions.join(', '), csv: (k) => k.permissions.join(' ') },
              { label: 'Indexes', render: (k) => (k.indexes === null ? <span class="muted">all</span> : k.indexes.join(', ')), csv: (k) => (k.indexes === null ? 'all' : k.indexes.join(' ')) },
              { label: 'Created', render: (k) => formatDate(k.created_at), csv: (k) => k.created_at },
              { label: 'Last used', render: (k) => (k.last_used_at ? formatDate(k.last_used_at) : <span class="muted">never</span>), csv: (k) => k.last_used_at ?? '' },
              {
                label: 'Status',
                render: (k) => (k.revoked_at ? <><span class="badge bad">revoked</span> <span class="muted">{formatDate(k.revoked_at)}</span></> : <span class="badge ok">active</span>),
                csv: (k) => (k.revoked_at ? `revoked ${k.revoked_at}` : 'active'),
              },
              {
                label: 'Actions',
                render: (k) =>
                  k.revoked_at ? (
                    <span class="muted">—</span>
                  ) : (
                    <button type="button" class="small" onClick={() => setRevoking(k)}>
                      Revoke<span class="visually-hidden"> key {k.name}</span>
                    </button>
                  ),
              },
            ]}
          />
        )}
      </AsyncView>
      <ConfirmDialog
        open={revoking !== null}
        title="Revoke key"
        confirmLabel="Revoke key"
        onCancel={() => setRevoking(null)}
        onConfirm={() => revoking && revoke(revoking)}
      >
        <p>
          Revoke “{revoking?.name}” (<code>{revoking?.prefix}…</code>)? Every request made with it will be refused from now on. This cannot be undone.
        </p>
      </ConfirmDialog>
    </section>
  );
}

function SecretOnce({ created, onDone }: { created: CreatedKey; onDone: () => void }) {
  // Focus moves here so keyboard and screen-reader users land on the key they must copy now.
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), [created.id]);
  return (
    <section class="card key-secret" aria-labelledby="secret-title">
      <h2 id="secret-title" tabIndex={-1} ref={heading}>Key “{created.name}” created</h2>
      <p><strong>Copy this key now: it will not be shown again.</strong> Quarry keeps only a hash of it.</p>
      <div class="key-secret-row">
        <code class="secret" aria-label="The new API key">{created.key}</code>
        <CopyButton text={created.key} label="Copy key" />
      </div>
      <p class="muted">
        Permissions: {created.permissions.join(', ')}; indexes: {created.indexes === null ? 'all' : created.indexes.join(', ')}.
      </p>
      <div class="actions">
        <button type="button" onClick={onDone}>I have stored the key</button>
      </div>
    </section>
  );
}

function CreateKeyForm({ onCreated }: { onCreated: (k: CreatedKey) => void }) {
  const indexes = useAsync((signal) => api.all<{ indexes: IndexView[] }>('/v1/admin/indexes', 'indexes', signal), []);
  const [name, setName] = useState('');
  const [permissions, setPermissions] = useState<Permission[]>(['read']);
  const [scoped, setScoped] = useState(false);
  const [chosen, setChosen] = useState<string[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const toggle = <T,>(list: T[], v: T, on: boolean) => (on ? [...list.filter((x) => x !== v), v] : list.filter((x) => x !== v));
  // An admin key may use every index: the server refuses a scope for it, so the form offers none.
  const admin = permissions.includes('admin');
  const limited = scoped && !admin;

  async function submit(e: Event) {
    e.preventDefault();
    if (limited && chosen.length === 0) {
      setError('Check at least one index, or choose “All indexes”.');
      return;
    }
    setBusy(true);
    setError(null);
    try {
      onCreated(await api.post<CreatedKey>('/v1/admin/keys', { name: name.trim(), permissions, indexes: limited ? chosen : null }));
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setBusy(false);
    }
  }

  return (
    <form class="card" aria-labelledby="create-key-title" onSubmit={submit} noValidate>
      <h2 id="create-key-title">Create a key</h2>
      <Field label="Name" id="key-name" hint="Who or what uses it, e.g. “docs site crawler”">
        <input id="key-name" required value={name} autoComplete="off" aria-describedby="key-name-hint" onInput={(e) => setName(e.currentTarget.value)} />
      </Field>
      <fieldset>
        <legend>Permissions</legend>
        {PERMISSIONS.map((p) => (
          <label class="index-choice">
            <input type="checkbox" checked={permissions.includes(p.value)} onChange={(e) => setPermissions(toggle(permissions, p.value, e.currentTarget.checked))} />
            {p.label} <span class="muted">({p.hint})</span>
          </label>
        ))}
      </fieldset>
      <fieldset>
        <legend>Index scope</legend>
        {admin && <p class="muted" id="key-scope-admin">An admin key applies to every index.</p>}
        <label class="index-choice">
          <input type="radio" name="key-scope" checked={!limited} disabled={admin} aria-describedby={admin ? 'key-scope-admin' : undefined} onChange={() => setScoped(false)} />
          All indexes
        </label>
        <label class="index-choice">
          <input type="radio" name="key-scope" checked={limited} disabled={admin} aria-describedby={admin ? 'key-scope-admin' : undefined} onChange={() => setScoped(true)} />
          Only the indexes checked below
        </label>
        {limited && (
          <AsyncView state={indexes} label="indexes" isEmpty={(d) => d.indexes.length === 0} empty="There are no indexes yet: create one first, or give the key all indexes.">
            {(d) => (
              <fieldset class="key-scope-list">
                <legend class="visually-hidden">Indexes this key may use</legend>
                {d.indexes.map((i) => (
                  <label class="index-choice">
                    <input type="checkbox" checked={chosen.includes(i.uid)} onChange={(e) => setChosen(toggle(chosen, i.uid, e.currentTarget.checked))} />
                    {i.uid}
                  </label>
                ))}
              </fieldset>
            )}
          </AsyncView>
        )}
      </fieldset>
      {error && <p class="error" role="alert">{error}</p>}
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>{busy ? 'Creating…' : 'Create key'}</button>
      </div>
    </form>
  );
}
