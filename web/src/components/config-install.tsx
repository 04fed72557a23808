import { seg } from '../api';
import { href } from '../router';
import type { Configuration } from './config-common';
import { CopyButton } from './controls';

interface Endpoint {
  title: string;
  what: string;
  curl: string;
  fetch: string;
}

/** Ready-to-paste calls of every public route of the configuration (API.md section A), on this server's address. */
function endpoints(c: Configuration, origin: string): Endpoint[] {
  const api = `${origin}/v1/${c.variant}`;
  const uid = c.uid;
  const get = (path: string, params: string, what: string, title: string, headers = ''): Endpoint => ({
    title,
    what,
    curl: `curl ${headers ? `-H '${headers}' ` : ''}'${api}/${path}?uid=${uid}${params}'`,
    fetch: `const res = await fetch('${api}/${path}?uid=${uid}${params}'${headers ? `, {\n  headers: { '${headers.split(': ')[0]}': '${headers.split(': ')[1]}' },\n}` : ''});\nconst data = await res.json();`,
  });
  const post = (path: string, body: Record<string, unknown>, what: string, title: string, answer = 'const data = await res.json();'): Endpoint => ({
    title,
    what,
    curl: `curl -X POST '${api}/${path}' \\\n  -H 'Content-Type: application/json' \\\n  -d '${JSON.stringify(body)}'`,
    fetch: `const res = await fetch('${api}/${path}', {\n  method: 'POST',\n  headers: { 'Content-Type': 'application/json' },\n  body: JSON.stringify(${JSON.stringify(body, null, 2).replace(/\n/g, '\n  ')}),\n});\n${answer}`,
  });
  return [
    get('search', '&session-id=VISITOR_SESSION&query=how+to+install', 'Results for a query: instant answers first, then paragraphs. Each result carries feedback_data for click feedback.', 'Search'),
    get('autocomplete', '&query=how+to&limit=5', 'Suggestions from earlier searches, once enough were recorded.', 'Autocomplete'),
    get('summary', '&session-id=VISITOR_SESSION&query=how+to+install', 'A generated answer with references. Send Accept: text/event-stream to receive it as it is written; show a placeholder meanwhile.', 'Summary'),
    post('chat', { uid, query: 'How do I install it?', 'session-id': 'VISITOR_SESSION' }, 'A conversation: send the returned conversation_id as conversation-id with the next question to continue it.', 'Chat'),
    get('top-questions', '', 'The top questions to show before anyone types.', 'Top questions'),
    post('feedback', { type: 'click', feedback_data: 'FEEDBACK_DATA_OF_THE_CLICKED_RESULT' }, 'Report a click on a result (teaches the ranking and feeds insights). Answers 204.', 'Click feedback', '// 204: nothing to read'),
    post('support-forward', { uid, url: 'https://example.com/support', 'session-id': 'VISITOR_SESSION' }, 'Report that a visitor went on to your support page. Answers 204.', 'Support forward', '// 204: nothing to read'),
    get('conversations', '&from=2025-01-01&to=2025-02-01', 'Conversations with a turn in the range. Needs an API key with the read permission: never call it from a browser.', 'Conversations', 'X-API-Key: YOUR_READ_KEY'),
  ];
}

/** Install: the uid, the widget snippet with the origins it may run on, and the code for every endpoint. */
export function ConfigInstall({ config }: { config: Configuration }) {
  const origin = location.origin;
  // The widget asks the API UI unless told otherwise: a Tool configuration's uid is not found there.
  const variant = config.variant === 'tool' ? ' data-variant="tool"' : '';
  const widget = `<script src="${origin}/widget.js" data-uid="${config.uid}"${variant} defer></script>`;
  const element = `<quarry-search uid="${config.uid}" variant="${config.variant}"></quarry-search>\n<script src="${origin}/widget.js" defer></script>`;
  return (
    <>
      <h2>Install</h2>
      <div class="card">
        <h3 id="install-uid">Configuration uid</h3>
        <div class="row">
          <code class="secret" aria-labelledby="install-uid">{config.uid}</code>
          <CopyButton text={config.uid} label="Copy uid" />
        </div>
        <p class="muted">
          Base URL <code>{origin}</code>. Replace VISITOR_SESSION with an id you keep per visitor: it is stored only as a keyed hash.
        </p>
      </div>
      <section aria-labelledby="install-widget" class="card">
        <h3 id="install-widget">Widget</h3>
        <AllowedOrigins config={config} />
        <p>Paste where the search box should appear on your pages: the box, with answers and chat, is inserted right after the tag.</p>
        <Snippet code={widget} label="widget snippet" />
        <p>Or place the element yourself (for frameworks), with the script loaded once per page:</p>
        <Snippet code={element} label="widget element" />
        <p class="muted">
          A page with a Content-Security-Policy must allow <code>{origin}</code> in <code>script-src</code> and <code>connect-src</code>.
        </p>
      </section>
      {endpoints(config, origin).map((e) => (
        <section class="card" aria-labelledby={`install-${slug(e.title)}`}>
          <h3 id={`install-${slug(e.title)}`}>{e.title}</h3>
          <p class="muted">{e.what}</p>
          <h4>curl</h4>
          <Snippet code={e.curl} label={`${e.title} curl example`} />
          <h4>fetch</h4>
          <Snippet code={e.fetch} label={`${e.title} fetch example`} />
        </section>
      ))}
    </>
  );
}

const slug = (s: string) => s.toLowerCase().replace(/[^a-z0-9]+/g, '-');

/** The widget and browser calls work only on pages whose origin the configuration allows (Settings). */
function AllowedOrigins({ config }: { config: Configuration }) {
  const settings = <a href={href(`/configurations/${seg(config.uid)}/settings`)}>Settings</a>;
  const origins = config.allowed_origins;
  if (origins.length === 0) {
    return (
      <p class="error">
        <span>
          No site may use this configuration yet: the widget shows an error on every page. Add your site's origin (e.g. https://www.example.com) under Allowed origins in {settings}.
        </span>
      </p>
    );
  }
  if (origins.includes('*')) return <p>Allowed origins: <code>*</code>, any site may embed it. To keep it to your own, list your sites in {settings}.</p>;
  return (
    <>
      <p id="install-origins">It works on pages from these origins (Allowed origins, in {settings}):</p>
      <ul aria-labelledby="install-origins">
        {origins.map((o) => <li><code>{o}</code></li>)}
      </ul>
    </>
  );
}

function Snippet({ code, label }: { code: string; label: string }) {
  return (
    <div class="snippet">
      <pre aria-label={label}><code>{code}</code></pre>
      <CopyButton text={code} label={`Copy ${label}`} />
    </div>
  );
}
