import { useEffect, useRef, useState } from 'preact/hooks';
import { messageOf } from '../components/async';
import { signIn, type Session } from '../session';

export function SignIn({ onSignedIn, notice }: { onSignedIn: (s: Session) => void; notice?: string | null }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => {
    document.title = 'Sign in · Quarry';
    input.current?.focus();
  }, []);
  return (
    <main class="sign-in" id="main">
      <form
        aria-labelledby="sign-in-title"
        onSubmit={async (e) => {
          e.preventDefault();
          setBusy(true);
          setError(null);
          try {
            const s = await signIn(key.trim());
            // The key is not kept anywhere once the server has answered: only the httpOnly cookie is.
            setKey('');
            onSignedIn(s);
          } catch (err) {
            setError(messageOf(err));
            input.current?.focus();
          } finally {
            setBusy(false);
          }
        }}
      >
        <h1 id="sign-in-title">Sign in to Quarry</h1>
        {notice && <p class="notice" role="status">{notice}</p>}
        <p class="muted">Paste the master key or an API key with the <code>admin</code> permission. The key is sent once; the app then uses a session.</p>
        <div class="field">
          <label for="admin-key">Admin key</label>
          <input
            id="admin-key"
            ref={input}
            type="password"
            autoComplete="off"
            spellcheck={false}
            required
            value={key}
            aria-invalid={error ? 'true' : undefined}
            aria-describedby={error ? 'sign-in-error' : undefined}
            onInput={(e) => setKey(e.currentTarget.value)}
          />
        </div>
        {error && <p id="sign-in-error" class="error" role="alert">{error}</p>}
        <button type="submit" class="primary" disabled={busy}>{busy ? 'Signing in…' : 'Sign in'}</button>
      </form>
    </main>
  );
}
