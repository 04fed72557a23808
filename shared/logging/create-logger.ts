import { pino, type Logger } from 'pino';

export function createLogger(level: string, role: string): Logger {
  return pino({ level, base: { role, pid: process.pid } });
}
