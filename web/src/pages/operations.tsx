import { api, seg } from '../api';
import { AsyncView, useAsync } from '../components/async';
import { PageHeader, formatDate } from '../components/controls';
import { DataTable } from '../components/table';
import { href } from '../router';

interface QueueView {
  name: string;
  waiting: number;
  active: number;
  delayed: number;
  failed: number;
  completed: number;
  oldest_waiting_seconds: number | null;
}

interface FailedJob {
  queue: string;
  id: string;
  name: string;
  reason: string;
  attempts: number;
  failed_at: string;
  index_uid?: string;
}

interface Operations {
  /** 'ok', or 'down: <why>'. */
  health: Record<string, string>;
  queues: QueueView[];
  failed_jobs: FailedJob[];
  dashboard: string | null;
}

/** "45 s", "3 min 20 s", "2 h 5 min", "3 d 4 h": how long the oldest job has waited, at a glance. */
function humanDuration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined) return '—';
  const s = Math.max(0, Math.round(seconds));
  const units: [string, number][] = [['d', 86400], ['h', 3600], ['min', 60], ['s', 1]];
  const parts: string[] = [];
  let rest = s;
  for (const [name, size] of units) {
    const n = Math.floor(rest / size);
    rest -= n * size;
    if (n > 0 || (parts.length === 0 && size === 1)) parts.push(`${n} ${name}`);
    if (parts.length === 2) break;
  }
  return parts.join(' ');
}

export default function OperationsPage() {
  const state = useAsync((signal) => api.get<Operations>('/v1/admin/operations', signal), [], 5000);
  return (
    <section aria-labelledby="page-title">
      <PageHeader title="Operations" />
      <p class="muted">Refreshed every 5 seconds.</p>
      <AsyncView state={state} label="the operations overview">
        {(d) => (
          <>
            <section aria-labelledby="health-title">
              <h2 id="health-title">Health</h2>
              <ul class="ops-health">
                {Object.entries(d.health).map(([name, value]) => (
                  <li>
                    <span class="ops-health-name">{name}</span> <span class={`badge ${value === 'ok' ? 'ok' : 'bad'}`}>{value === 'ok' ? 'up' : 'down'}</span>
                    {value !== 'ok' && <span class="ops-health-detail">{value.replace(/^down: /, '')}</span>}
                  </li>
                ))}
              </ul>
            </section>
            <h2>Queues</h2>
            <DataTable
              caption="Job queues"
              csvName="queues.csv"
              rowKey={(q) => q.name}
              rows={d.queues}
              empty="No queues reported."
              columns={[
                { label: 'Queue', csv: (q) => q.name },
                { label: 'Waiting', numeric: true, render: (q) => q.waiting.toLocaleString(), csv: (q) => q.waiting },
                { label: 'Active', numeric: true, render: (q) => q.active.toLocaleString(), csv: (q) => q.active },
                { label: 'Delayed', numeric: true, render: (q) => q.delayed.toLocaleString(), csv: (q) => q.delayed },
                { label: 'Failed', numeric: true, render: (q) => (q.failed > 0 ? <span class="badge bad">{q.failed}</span> : '0'), csv: (q) => q.failed },
                { label: 'Completed', numeric: true, render: (q) => q.completed.toLocaleString(), csv: (q) => q.completed },
                { label: 'Oldest waiting', numeric: true, render: (q) => humanDuration(q.oldest_waiting_seconds), csv: (q) => q.oldest_waiting_seconds },
              ]}
            />
            <h2>Failed jobs</h2>
            {d.failed_jobs.length === 0 ? (
              <p class="empty">No failed jobs.</p>
            ) : (
              <DataTable
                caption="Failed jobs, newest first"
                csvName="failed-jobs.csv"
                rowKey={(j) => `${j.queue}/${j.id}`}
                rows={[...d.failed_jobs].sort((a, b) => b.failed_at.localeCompare(a.failed_at))}
                columns={[
                  { label: 'Queue', csv: (j) => j.queue },
                  { label: 'Job', render: (j) => <><code>{j.id}</code> <span class="muted">{j.name}</span></>, csv: (j) => `${j.id} ${j.name}` },
                  { label: 'Index', render: (j) => (j.index_uid ? <a href={href(`/indexes/${seg(j.index_uid)}`)}>{j.index_uid}</a> : '—'), csv: (j) => j.index_uid ?? '' },
                  { label: 'Reason', render: (j) => <span class="ops-reason">{j.reason}</span>, csv: (j) => j.reason },
                  { label: 'Attempts', numeric: true, csv: (j) => j.attempts },
                  { label: 'Failed at', render: (j) => formatDate(j.failed_at), csv: (j) => j.failed_at },
                ]}
              />
            )}
            <h2>Queue dashboard</h2>
            {d.dashboard ? (
              <p>
                <a href={d.dashboard} target="_blank" rel="noopener">Open the queue dashboard</a> (Bull Board, in a new tab).
              </p>
            ) : (
              <p class="muted">The queue dashboard is not enabled on this server.</p>
            )}
          </>
        )}
      </AsyncView>
    </section>
  );
}
