import cluster, { type Worker } from 'node:cluster';
import { AggregatorRegistry, type MetricObjectWithValues, type MetricValue, type Registry } from 'prom-client';

/**
 * /metrics over several API processes sharing a port: a scrape lands on any one of them, so that one
 * asks the primary, which collects the registry of every process that serves and sums them
 * (prom-client's aggregation: counters and histograms add up, process memory and CPU are the totals,
 * event-loop lag is averaged). A scrape therefore sees the whole host, whichever process answers.
 *
 * Only processes that listen are asked, and one that does not answer within COLLECT_TIMEOUT_MS is left
 * out of that scrape (`quarry_api_processes_reporting` says how many were summed): a process still
 * starting, or one replacing a dead one, used to fail every scrape for 5 s (prom-client's own cluster
 * collection asks every forked process and gives up on all of them if one is silent).
 */
const REQUEST = 'quarry:metrics-request';
const ANSWER = 'quarry:metrics-answer';
const COLLECT = 'quarry:metrics-collect';
const COLLECTED = 'quarry:metrics-collected';
const ANSWER_TIMEOUT_MS = 6000;
const COLLECT_TIMEOUT_MS = 2000;

type MetricsJson = MetricObjectWithValues<MetricValue<string>>[];
interface Request {
  type: typeof REQUEST;
  id: number;
}
interface Answer {
  type: typeof ANSWER;
  id: number;
  text?: string;
  error?: string;
}
interface Collect {
  type: typeof COLLECT;
  id: number;
}
interface Collected {
  type: typeof COLLECTED;
  id: number;
  metrics: MetricsJson;
}

/** Primary: answers any API process's request with the metrics of every serving one, and how many serve. */
export function serveClusterMetrics(serving: () => readonly Worker[]): void {
  const pending = new Map<number, (metrics: MetricsJson | null) => void>();
  let next = 0;
  const collect = (worker: Worker) => new Promise<MetricsJson | null>((resolve) => {
    const id = next++;
    const timer = setTimeout(() => settle(null), COLLECT_TIMEOUT_MS);
    const settle = (metrics: MetricsJson | null) => {
      clearTimeout(timer);
      pending.delete(id);
      resolve(metrics);
    };
    pending.set(id, settle);
    if (!worker.isConnected()) return settle(null);
    worker.send({ type: COLLECT, id } satisfies Collect, (err: Error | null) => err && settle(null));
  });
  const gauges = (servingCount: number, reporting: number) =>
    `# HELP quarry_api_processes API processes serving on this port\n# TYPE quarry_api_processes gauge\nquarry_api_processes ${servingCount}\n`
    + `# HELP quarry_api_processes_reporting API processes whose metrics this scrape sums (one that did not answer in ${COLLECT_TIMEOUT_MS / 1000} s is left out)\n`
    + `# TYPE quarry_api_processes_reporting gauge\nquarry_api_processes_reporting ${reporting}\n`;
  const summed = async (): Promise<string> => {
    const workers = serving();
    const collected = (await Promise.all(workers.map(collect))).filter((m): m is MetricsJson => m !== null);
    const text = collected.length ? await AggregatorRegistry.aggregate(collected).metrics() : '';
    return `${text}\n${gauges(workers.length, collected.length)}`;
  };
  cluster.on('message', (worker, message: Request | Collected) => {
    if (message?.type === COLLECTED) {
      pending.get(message.id)?.(message.metrics);
      return;
    }
    if (message?.type !== REQUEST) return;
    const reply = (a: Omit<Answer, 'type' | 'id'>) => {
      if (worker.isConnected()) worker.send({ type: ANSWER, id: message.id, ...a } satisfies Answer);
    };
    summed().then((text) => reply({ text }), (err: Error) => reply({ error: err.message }));
  });
}

/** An API process of a cluster: hands `registry` to the primary's collection; returns the reader of the summed text. */
export function clusterMetricsText(registry: Registry): () => Promise<string> {
  const waiting = new Map<number, { resolve: (text: string) => void; reject: (err: Error) => void; timer: NodeJS.Timeout }>();
  let next = 0;
  process.on('message', (message: Answer | Collect) => {
    if (message?.type === COLLECT) {
      const { id } = message;
      registry.getMetricsAsJSON().then(
        (metrics) => process.send?.({ type: COLLECTED, id, metrics } satisfies Collected),
        // Left out of that scrape, as a process that does not answer is.
        () => undefined,
      );
      return;
    }
    if (message?.type !== ANSWER) return;
    const w = waiting.get(message.id);
    if (!w) return;
    waiting.delete(message.id);
    clearTimeout(w.timer);
    if (message.text !== undefined) w.resolve(message.text);
    else w.reject(new Error(`metrics of the API processes: ${message.error}`));
  });
  return () => new Promise((resolve, reject) => {
    const id = next++;
    const timer = setTimeout(() => {
      waiting.delete(id);
      reject(new Error('metrics of the API processes: the primary did not answer'));
    }, ANSWER_TIMEOUT_MS);
    waiting.set(id, { resolve, reject, timer });
    process.send!({ type: REQUEST, id } satisfies Request);
  });
}
