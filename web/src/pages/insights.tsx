import { useMemo, useState } from 'preact/hooks';
import { api, qs, seg } from '../api';
import { AsyncView, ErrorMessage, useAsync } from '../components/async';
import { DailyChart } from '../components/chart';
import { ConfigTabs, configPath, useConfiguration } from '../components/config-common';
import { Field, PageHeader } from '../components/controls';
import { InsightsConversations } from '../components/insights-conversations';
import {
  DEFAULT_DAYS, PRESETS, dayCount, daysOf, isDate, lastDays, midnight, previousRange, rangeParams, timeZone, type DayRange,
} from '../components/insights-range';
import { DataTable } from '../components/table';
import { href, navigate, useLocation } from '../router';

/** GET /v1/admin/configurations/:uid/insights (api/schemas/configuration-schemas.ts insightsSchema). */
interface InsightsData {
  searches: number;
  sessions: number;
  clicks: number;
  searches_with_click: number;
  ctr: number;
  no_result_searches: number;
  support_forwards: number;
  summaries_answered: number;
  summaries_unanswered: number;
  chats_answered: number;
  chats_unanswered: number;
  top_queries: { query: string; searches: number; clicks: number }[];
  no_result_queries: { query: string; searches: number }[];
  click_positions: { position: number; clicks: number }[];
  by_day: { day: string; searches: number; clicks: number; no_results: number; sessions: number }[];
  devices: { device: string; searches: number }[];
  support_forward_urls: { url: string; forwards: number }[];
}

/** Length of the top-query and no-result-query lists. */
const LIST_LIMIT = 50;

const load = (uid: string, range: DayRange, limit: number, signal: AbortSignal) =>
  api.get<InsightsData>(`${configPath(uid)}/insights${qs({ ...rangeParams(range), limit })}`, signal);

/** The range the url names: ?days=N (a preset) or ?from=YYYY-MM-DD&to=YYYY-MM-DD (custom, inclusive). */
function rangeOf(query: URLSearchParams): { range: DayRange; days: number | null } {
  const from = query.get('from');
  const to = query.get('to');
  if (isDate(from) && isDate(to) && from <= to) return { range: { from, to }, days: null };
  const days = Number(query.get('days'));
  const n = PRESETS.includes(days) ? days : DEFAULT_DAYS;
  return { range: lastDays(n), days: n };
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
const share = (part: number, whole: number) => (whole ? pct(part / whole) : '—');
const fmtDay = (d: string) => midnight(d).toLocaleDateString(undefined, { year: 'numeric', month: 'short', day: 'numeric' });

interface Kpi {
  label: string;
  value: (d: InsightsData) => number;
  rate?: boolean;
}
const KPIS: Kpi[] = [
  { label: 'Searches', value: (d) => d.searches },
  { label: 'Sessions', value: (d) => d.sessions },
  { label: 'Click-through rate', value: (d) => d.ctr, rate: true },
  { label: 'No-result rate', value: (d) => (d.searches ? d.no_result_searches / d.searches : 0), rate: true },
  { label: 'Support forwards', value: (d) => d.support_forwards },
  { label: 'Summaries answered', value: (d) => d.summaries_answered },
  { label: 'Summaries unanswered', value: (d) => d.summaries_unanswered },
  { label: 'Chats answered', value: (d) => d.chats_answered },
  { label: 'Chats unanswered', value: (d) => d.chats_unanswered },
];

/** The change against the previous period: relative for counts, in percentage points for rates. */
function change(k: Kpi, now: InsightsData, before: InsightsData): string {
  const a = k.value(now);
  const b = k.value(before);
  const was = k.rate ? pct(b) : b.toLocaleString();
  if (k.rate) {
    const points = (a - b) * 100;
    return Math.abs(points) < 0.05 ? `same as previous period (${was})` : `${points > 0 ? '+' : '−'}${Math.abs(points).toFixed(1)} points vs previous period (${was})`;
  }
  if (a === b) return `same as previous period (${was})`;
  if (b === 0) return 'previous period: 0';
  const rel = ((a - b) / b) * 100;
  return `${rel > 0 ? '+' : '−'}${Math.abs(rel).toFixed(Math.abs(rel) < 10 ? 1 : 0)}% vs previous period (${was})`;
}

/** Insights of one configuration over a range of local days, each figure against the previous period. */
export default function Insights({ uid }: { uid: string }) {
  const config = useConfiguration(uid);
  const { query } = useLocation();
  const { range, days } = rangeOf(query);
  const [compare, setCompare] = useState(true);
  const current = useAsync((signal) => load(uid, range, LIST_LIMIT, signal), [uid, range.from, range.to]);
  const prev = previousRange(range);
  // Only the totals of the previous period are shown: its lists are kept short.
  const previous = useAsync((signal) => (compare ? load(uid, prev, 1, signal) : Promise.resolve(null)), [uid, range.from, range.to, compare]);
  const csvSuffix = `${uid}-${range.from}-to-${range.to}`;
  const go = (params: Record<string, string | number>) => navigate(`/configurations/${seg(uid)}/insights${qs(params)}`, true);
  const name = config.data?.name;

  return (
    <section aria-labelledby="page-title">
      <PageHeader title={name ? `${name} · Insights` : 'Insights'}>
        <a class="button small" href={href('/configurations')}>All configurations</a>
      </PageHeader>
      {config.error && <ErrorMessage message={config.error} onRetry={config.reload} />}
      <ConfigTabs uid={uid} current="insights" />
      <RangePicker key={`${range.from}/${range.to}`} range={range} days={days} onPreset={(n) => go({ days: n })} onCustom={(r) => go({ from: r.from, to: r.to })} />
      <div class="range-line">
        <p class="muted" role="status">
          {fmtDay(range.from)} – {fmtDay(range.to)} ({dayCount(range)} days, {timeZone()})
          {compare && <> · compared with {fmtDay(prev.from)} – {fmtDay(prev.to)}</>}
        </p>
        <label class="choice">
          <input type="checkbox" checked={compare} onChange={(e) => setCompare(e.currentTarget.checked)} /> Compare with previous period
        </label>
      </div>
      <AsyncView state={current} label="insights">
        {(d) => (
          <>
            <h2 class="visually-hidden">Key figures</h2>
            {previous.error && <ErrorMessage message={`The previous period could not be loaded: ${previous.error}`} onRetry={previous.reload} />}
            <ul class="kpis" aria-label="Key figures">
              {KPIS.map((k) => (
                <li class="kpi">
                  <div class="label">{k.label}</div>
                  <div class="value">{k.rate ? pct(k.value(d)) : k.value(d).toLocaleString()}</div>
                  {compare && (
                    <div class="delta muted">
                      {previous.data ? change(k, d, previous.data) : previous.loading ? 'Comparing…' : ''}
                    </div>
                  )}
                </li>
              ))}
            </ul>
            <Daily data={d} range={range} csvSuffix={csvSuffix} />
            <div class="grid2">
              <DataTable
                caption="Top queries"
                rowKey={(r) => r.query}
                rows={d.top_queries}
                csvName={`top-queries-${csvSuffix}.csv`}
                empty="No searches in this range."
                columns={[
                  { label: 'Query', csv: (r) => r.query },
                  { label: 'Searches', numeric: true, csv: (r) => r.searches },
                  { label: 'Clicks', numeric: true, csv: (r) => r.clicks },
                ]}
              />
              <DataTable
                caption="No-result queries"
                rowKey={(r) => r.query}
                rows={d.no_result_queries}
                csvName={`no-result-queries-${csvSuffix}.csv`}
                empty="Every search found something."
                columns={[
                  { label: 'Query', csv: (r) => r.query },
                  { label: 'Searches', numeric: true, csv: (r) => r.searches },
                  {
                    label: 'Action',
                    render: (r) => (
                      <a href={href(`/configurations/${seg(uid)}/instant-answers${qs({ query: r.query })}`)} aria-label={`Create instant answer for “${r.query}”`}>
                        Create instant answer
                      </a>
                    ),
                  },
                ]}
              />
              <DataTable
                caption="Click positions"
                rowKey={(r) => String(r.position)}
                rows={d.click_positions}
                csvName={`click-positions-${csvSuffix}.csv`}
                empty="No clicks in this range."
                columns={[
                  { label: 'Position', numeric: true, csv: (r) => r.position },
                  { label: 'Clicks', numeric: true, csv: (r) => r.clicks },
                  { label: 'Share', numeric: true, csv: (r) => share(r.clicks, d.clicks) },
                ]}
              />
              <DataTable
                caption="Devices"
                rowKey={(r) => r.device}
                rows={d.devices}
                csvName={`devices-${csvSuffix}.csv`}
                empty="No searches in this range."
                columns={[
                  { label: 'Device', csv: (r) => r.device },
                  { label: 'Searches', numeric: true, csv: (r) => r.searches },
                  { label: 'Share', numeric: true, csv: (r) => share(r.searches, d.searches) },
                ]}
              />
            </div>
            <DataTable
              caption={`Support forwards (${d.support_forwards.toLocaleString()} in all)`}
              rowKey={(r) => r.url}
              rows={d.support_forward_urls}
              csvName={`support-forwards-${csvSuffix}.csv`}
              empty="No visitor went on to support in this range."
              columns={[
                { label: 'URL', render: (r) => <span class="break">{r.url}</span>, csv: (r) => r.url },
                { label: 'Forwards', numeric: true, csv: (r) => r.forwards },
              ]}
            />
          </>
        )}
      </AsyncView>
      <InsightsConversations uid={uid} range={range} csvSuffix={csvSuffix} />
    </section>
  );
}

function RangePicker(props: { range: DayRange; days: number | null; onPreset: (days: number) => void; onCustom: (r: DayRange) => void }) {
  const [from, setFrom] = useState(props.range.from);
  const [to, setTo] = useState(props.range.to);
  const [error, setError] = useState<string | null>(null);
  return (
    <div class="card range-picker">
      <div class="presets" role="group" aria-label="Date range">
        {PRESETS.map((n) => (
          <button type="button" class={props.days === n ? 'primary' : undefined} aria-pressed={props.days === n} onClick={() => {
            setFrom(lastDays(n).from);
            setTo(lastDays(n).to);
            setError(null);
            props.onPreset(n);
          }}>
            Last {n} days
          </button>
        ))}
      </div>
      <form
        class="row"
        aria-label="Custom date range"
        onSubmit={(e) => {
          e.preventDefault();
          if (!isDate(from) || !isDate(to)) return setError('Choose both dates.');
          if (from > to) return setError('The start date must be on or before the end date.');
          setError(null);
          props.onCustom({ from, to });
        }}
      >
        <Field label="Start date" id="insights-from">
          <input id="insights-from" type="date" required value={from} max={to} onInput={(e) => setFrom(e.currentTarget.value)} />
        </Field>
        <Field label="End date" id="insights-to">
          <input id="insights-to" type="date" required value={to} min={from} onInput={(e) => setTo(e.currentTarget.value)} />
        </Field>
        <button type="submit" aria-pressed={props.days === null}>Apply range</button>
      </form>
      {error && <p class="error" role="alert">{error}</p>}
    </div>
  );
}

/** Searches and sessions per local day: a chart, and the same figures as a table (its text alternative and CSV). */
function Daily({ data, range, csvSuffix }: { data: InsightsData; range: DayRange; csvSuffix: string }) {
  const rows = useMemo(() => {
    const byDay = new Map(data.by_day.map((d) => [d.day, d]));
    return daysOf(range).map((day) => byDay.get(day) ?? { day, searches: 0, sessions: 0, clicks: 0, no_results: 0 });
  }, [data, range.from, range.to]);
  const days = useMemo(() => rows.map((r) => midnight(r.day)), [rows]);
  const series = useMemo(() => [
    { label: 'Searches', values: rows.map((r) => r.searches) },
    { label: 'Sessions', values: rows.map((r) => r.sessions) },
  ], [rows]);
  return (
    <section aria-labelledby="insights-daily">
      <h2 id="insights-daily">Searches and sessions per day</h2>
      <figure class="chart" aria-labelledby="insights-daily">
        <DailyChart
          days={days}
          series={series}
          label={`Line chart of searches and sessions per day, ${fmtDay(range.from)} – ${fmtDay(range.to)}; the table “Per day” below lists the same figures.`}
        />
      </figure>
      <details class="per-day">
        <summary>Per-day table</summary>
        <DataTable
          caption="Per day"
          rowKey={(r) => r.day}
          rows={rows}
          csvName={`per-day-${csvSuffix}.csv`}
          columns={[
            { label: 'Day', csv: (r) => r.day },
            { label: 'Searches', numeric: true, csv: (r) => r.searches },
            { label: 'Sessions', numeric: true, csv: (r) => r.sessions },
            { label: 'Clicks', numeric: true, csv: (r) => r.clicks },
            { label: 'No results', numeric: true, csv: (r) => r.no_results },
          ]}
        />
      </details>
    </section>
  );
}
