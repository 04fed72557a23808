import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { onSignedOut } from './api';
import { ErrorMessage, messageOf } from './components/async';
import { href, match, navigate, onLinkClick, useLocation } from './router';
import { currentSession, signOut, type Session } from './session';
import { SignIn } from './pages/sign-in';
import { ROUTES, NAV } from './routes';

export function App() {
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  const [bootError, setBootError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  useEffect(() => {
    currentSession().then(setSession, (err) => setBootError(messageOf(err)));
    return onSignedOut(() => {
      setSession(null);
      setNotice('Your session ended. Sign in again to continue.');
    });
  }, []);
  if (bootError) return <main id="main" class="sign-in"><ErrorMessage message={bootError} onRetry={() => location.reload()} /></main>;
  if (session === undefined) return <p class="boot" role="status">Loading Quarry…</p>;
  if (!session) return <SignIn notice={notice} onSignedIn={(s) => { setNotice(null); setSession(s); }} />;
  return <Shell session={session} onSignOut={() => setSession(null)} />;
}

function Shell({ session, onSignOut }: { session: Session; onSignOut: () => void }) {
  const { path } = useLocation();
  const [menuOpen, setMenuOpen] = useState(false);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (path === '/' || path === '') navigate('/indexes', true);
    setMenuOpen(false);
    // Moving focus to the new page's heading tells screen-reader users the page changed.
    requestAnimationFrame(() => document.getElementById('page-title')?.focus({ preventScroll: true }));
  }, [path]);
  let page: ComponentChildren = <NotFound />;
  for (const r of ROUTES) {
    const params = match(r.path, path);
    if (params) {
      page = r.render(params);
      break;
    }
  }
  return (
    <div class="shell" onClick={onLinkClick}>
      <a class="skip-link" href="#main">Skip to content</a>
      <header class="topbar">
        <a class="brand" href={href('/indexes')}>Quarry</a>
        <button type="button" class="menu-toggle" aria-expanded={menuOpen} aria-controls="nav" onClick={() => setMenuOpen(!menuOpen)}>Menu</button>
        <nav id="nav" aria-label="Main" class={menuOpen ? 'open' : undefined}>
          <ul>
            {NAV.map((n) => (
              <li><a href={href(n.path)} aria-current={path.startsWith(n.path) ? 'page' : undefined}>{n.label}</a></li>
            ))}
          </ul>
        </nav>
        <div class="account">
          <span class="muted">Signed in as {session.name}</span>
          <button
            type="button"
            class="small"
            onClick={async () => {
              try {
                await signOut();
                onSignOut();
              } catch (err) {
                setError(messageOf(err));
              }
            }}
          >
            Sign out
          </button>
        </div>
      </header>
      {error && <ErrorMessage message={error} />}
      <main id="main">{page}</main>
    </div>
  );
}

function NotFound() {
  return (
    <section>
      <h1 id="page-title" tabIndex={-1}>Page not found</h1>
      <p>There is nothing at this address. <a href={href('/indexes')}>Go to the indexes</a>.</p>
    </section>
  );
}
