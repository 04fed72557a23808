import { AppError } from '../errors/app-error.js';

/**
 * Network failures, PostgreSQL's connection (08), resource (53, e.g. too many connections) and
 * shutdown (57P: restart, terminated backend) classes, and a session the server ended for idling
 * inside a transaction (25P03).
 */
const UNAVAILABLE_CODES = /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|ENOTFOUND|EPIPE|08\w{3}|53\w{3}|57P0\d|25P03)$/;
/** node-postgres's own words for a connection that died or never came (it sets no code on these). */
const UNAVAILABLE_MESSAGES = /timeout exceeded when trying to connect|Connection terminated|connection timeout|Client has encountered a connection error/i;
/** The server cancelled a statement past statement_timeout (57014); the client gave up on a server that did not answer. */
const TIMEOUT_CODES = /^57014$/;
const TIMEOUT_MESSAGES = /^Query read timeout$/;

const codeOf = (err: unknown) => {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : '';
};
const messageOf = (err: unknown) => (err instanceof Error ? err.message : '');

/** The store did not answer in time: the statement may or may not have taken effect. */
export function isStorageTimeout(err: unknown): boolean {
  return TIMEOUT_CODES.test(codeOf(err)) || TIMEOUT_MESSAGES.test(messageOf(err));
}

/** The store cannot be reached, or the connection to it died. */
export function isStorageUnavailable(err: unknown): boolean {
  return UNAVAILABLE_CODES.test(codeOf(err)) || UNAVAILABLE_MESSAGES.test(messageOf(err));
}

/**
 * A failure of the store itself (not of the request) as the error a client may retry: 504 when it
 * did not answer in time, 503 when it could not be reached; null for anything else (a bug: 500).
 */
export function storageFailure(err: unknown): AppError | null {
  if (isStorageTimeout(err)) {
    return new AppError('timeout', 'The database did not answer in time; retry shortly (a write may have been saved: repeating it is safe)');
  }
  if (isStorageUnavailable(err)) {
    return new AppError('dependency_unavailable', 'A storage service is unavailable; retry shortly (a write may have been saved: repeating it is safe)');
  }
  return null;
}
