import cluster from 'node:cluster';
import { AggregatorRegistry, type Registry } from 'prom-client';

/**
 * /metrics over several API processes sharing a port: a scrape lands on any one of them, so that one
 * asks the primary, which collects every process's registry and sums it (prom-client's cluster
 * aggregation: counters and histograms add up, process memory and CPU are the totals, event-loop lag
 * is averaged). A scrape therefore sees the whole host, whichever process answers.
 */
const REQUEST = 'quarry:metrics-request';
const ANSWER = 'quarry:metrics-answer';
const ANSWER_TIMEOUT_MS = 6000;

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

/** Primary: answers any API process's request with the metrics of all of them, and how many are serving. */
export function serveClusterMetrics(serving: () => number): void {
  const aggregator = new AggregatorRegistry();
  const servingGauge = () =>
    `# HELP quarry_api_processes API processes serving on this port\n# TYPE quarry_api_processes gauge\nquarry_api_processes ${serving()}\n`;
  cluster.on('message', (worker, message: Request) => {
    if (message?.type !== REQUEST) return;
    const reply = (a: Omit<Answer, 'type' | 'id'>) => {
      if (worker.isConnected()) worker.send({ type: ANSWER, id: message.id, ...a } satisfies Answer);
    };
    aggregator.clusterMetrics().then((text) => reply({ text: `${text}\n${servingGauge()}` }), (err: Error) => reply({ error: err.message }));
  });
}

/** An API process of a cluster: offers `registry` to the primary's collection; returns the reader of the summed text. */
export function clusterMetricsText(registry: Registry): () => Promise<string> {
  AggregatorRegistry.setRegistries([registry]);
  // Constructing one installs prom-client's listener that hands this process's metrics to the primary.
  new AggregatorRegistry();
  const waiting = new Map<number, { resolve: (text: string) => void; reject: (err: Error) => void; timer: NodeJS.Timeout }>();
  let next = 0;
  process.on('message', (message: Answer) => {
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
