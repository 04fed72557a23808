import { useState } from 'preact/hooks';
import { api, qs } from '../api';
import { AsyncView, messageOf, useAsync } from './async';
import { configPath, type Configuration } from './config-common';
import { OneLineForm } from './one-line-form';

interface Blocked {
  blocked_suggestions: string[];
}

/**
 * Suggestions autocomplete never offers, whatever visitors ask: visitors decide what is suggested, so an
 * operator needs the last word on anything unwanted that enough of them typed.
 */
export function ConfigBlockedSuggestions({ config }: { config: Configuration }) {
  const path = `${configPath(config.uid)}/blocked-suggestions`;
  const list = useAsync((signal) => api.all<Blocked>(path, 'blocked_suggestions', signal), [config.uid]);
  const [busy, setBusy] = useState(false);
  const [status, setStatus] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  const run = async (change: () => Promise<unknown>, done: string) => {
    setBusy(true);
    setError(null);
    setStatus(null);
    try {
      await change();
      setStatus(done);
      list.reload();
      return true;
    } catch (err) {
      setError(messageOf(err));
      return false;
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <h2>Blocked suggestions</h2>
      <p class="muted">Autocomplete never suggests these, however many visitors search for them. Case and spacing do not matter.</p>
      <div role="status" class="success">{status}</div>
      {error && <p class="error" role="alert">{error}</p>}
      <AsyncView state={list} label="the blocked suggestions">
        {(b) => b.blocked_suggestions.length === 0 ? (
          <div class="empty">Nothing is blocked.</div>
        ) : (
          <ul class="ordered-list" aria-label="Blocked suggestions">
            {b.blocked_suggestions.map((s) => (
              <li key={s}>
                <span class="grow">{s}</span>
                <span class="item-actions">
                  <button type="button" class="small" aria-label={`Unblock: ${s}`} disabled={busy}
                    onClick={() => void run(() => api.delete(`${path}${qs({ suggestion: s })}`), `Unblocked “${s}”.`)}>
                    Unblock
                  </button>
                </span>
              </li>
            ))}
          </ul>
        )}
      </AsyncView>
      <OneLineForm label="Suggestion to block" id="bs-new" submitLabel="Block" busy={busy}
        onSubmit={(text) => run(() => api.put(path, { suggestion: text }), `Blocked “${text}”.`)} />
    </>
  );
}
