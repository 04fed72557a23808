import { pino, type DestinationStream, type Logger } from 'pino';

/** Secrets never reach the logs: API keys and credentials are redacted from logged requests. */
const REDACT = ['req.headers["x-api-key"]', 'req.headers.authorization', 'req.headers.cookie', 'req.headers["x-session-id"]'];

/** `destination` defaults to stdout; tests pass one to read exactly what a process would write. */
export function createLogger(level: string, role: string, destination?: DestinationStream): Logger {
  const options = { level, base: { role, pid: process.pid }, redact: { paths: REDACT, censor: '[redacted]' } };
  return destination ? pino(options, destination) : pino(options);
}
