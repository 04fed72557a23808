/**
 * One table from a stable error name to its HTTP status. The wire body is the spec's
 * `{code, message}`; `error` (the name) and `details` sit beside them for machines.
 */
export const ERROR_STATUS = {
  invalid_request: 400,
  invalid_json: 400,
  invalid_document: 400,
  invalid_index: 400,
  invalid_filter: 400,
  invalid_api_key: 401,
  forbidden: 403,
  not_found: 404,
  index_not_found: 404,
  route_not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  internal: 500,
  bad_gateway: 502,
  dependency_unavailable: 503,
  timeout: 504,
  insufficient_storage: 507,
} as const;

export type ErrorName = keyof typeof ERROR_STATUS;

export interface ErrorBody {
  code: number;
  message: string;
  error: ErrorName;
  details?: unknown;
}

export class AppError extends Error {
  readonly status: number;
  constructor(
    readonly kind: ErrorName,
    message: string,
    readonly details?: unknown,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.status = ERROR_STATUS[kind];
  }

  /** What went wrong inside (a model's URL, a variable to raise): logged with the error, never sent (docs/security.md). */
  internal?: string;

  withInternal(detail: string): this {
    this.internal = detail;
    return this;
  }

  toBody(): ErrorBody {
    const body: ErrorBody = { code: this.status, message: this.message, error: this.kind };
    if (this.details !== undefined) body.details = this.details;
    return body;
  }
}
