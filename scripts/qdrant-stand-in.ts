// Serves the Qdrant stand-in of the tests (test/helpers/qdrant-stand-in.ts) on its own, to point a
// client at while trying it: an imitation of Qdrant 1.19's REST API held in memory, strict about what
// the API description allows, and nothing more.
//   npm run qdrant:stand-in -- [--port N] [--api-key K]
import { parseArgs } from 'node:util';
import { startQdrantStandIn, type Violation } from '../test/helpers/qdrant-stand-in.js';

function main(): Promise<number> | number {
  const { values } = parseArgs({ options: { port: { type: 'string' }, 'api-key': { type: 'string' } } });
  const port = Number(values.port ?? 0);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`--port ${values.port}: give a port number from 0 to 65535 (0 or none: any free port).`);
    return 2;
  }
  const apiKey = values['api-key'] || undefined;
  // Each refusal as it happens: the point of the stand-in is to show what a real Qdrant would refuse.
  const onViolation = (v: Violation) => console.error(`VIOLATION ${v.kind} ${v.method} ${v.url}${v.operation ? ` (${v.operation})` : ''}: ${v.errors.join('; ')}`);
  return startQdrantStandIn({ port, apiKey, onViolation }).then(
    (standIn) => {
      console.log(
        [
          "Qdrant stand-in: a TEST STAND-IN for Qdrant 1.19's REST API, held in memory. It is not a database.",
          '  - Nothing is persisted: every collection and point is gone when it stops.',
          apiKey ? '  - Requests must carry the api key given with --api-key in an `api-key` header.' : '  - No authentication (start it with --api-key K to require one).',
          '  - Exact search over every point (no HNSW, no quantisation), on the subset of the API the tests use; the rest answers 501.',
          "  - Every request and answer is checked against Qdrant's API description; each refusal is logged to stderr.",
          `URL: ${standIn.url}`,
          'Stop it with Ctrl-C (SIGINT) or SIGTERM.',
        ].join('\n'),
      );
      return new Promise<number>((resolve) => {
        const stop = (signal: NodeJS.Signals) => {
          console.log(`${signal}: stopping the stand-in (${standIn.violations.length} violation(s) seen).`);
          void standIn.close().then(() => resolve(0));
        };
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
      });
    },
    (e: unknown) => {
      console.error(`The stand-in could not start on 127.0.0.1:${port}: ${e instanceof Error ? e.message : String(e)}`);
      return 1;
    },
  );
}

process.exitCode = await main();
