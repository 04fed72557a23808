import { pino, type Logger } from 'pino';

/** Secrets never reach the logs: API keys and credentials are redacted from logged requests. */
const REDACT = ['req.headers["x-api-key"]', 'req.headers.authorization', 'req.headers.cookie', 'req.headers["x-session-id"]'];

export function createLogger(level: string, role: string): Logger {
  return pino({ level, base: { role, pid: process.pid }, redact: { paths: REDACT, censor: '[redacted]' } });
}
