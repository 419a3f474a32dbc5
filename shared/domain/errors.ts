/**
 * The stable error codes of the API (contract.md, "Wire conventions"). Clients branch on these,
 * so a code is never renamed; the HTTP status for each lives in one table in shared/http.
 */
export const errorCodes = [
  'invalid_request',
  'invalid_credentials',
  'email_not_verified',
  'unauthorized',
  'invalid_token',
  'forbidden',
  'not_found',
  'conflict',
  'invalid_otp',
  'otp_expired',
  'too_many_attempts',
  'rate_limited',
  'invalid_signature',
  'payload_too_large',
  'internal_error',
] as const;

export type ErrorCode = (typeof errorCodes)[number];

export interface ErrorDetail {
  field: string;
  message: string;
}

/**
 * The one error type domain code throws on purpose. `message` is public (it reaches the client);
 * anything internal goes in `cause`, which is logged and never sent.
 */
export class ServiceError extends Error {
  override readonly name = 'ServiceError';

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: ErrorDetail[] = [],
    options?: { cause?: unknown; retryAfterSeconds?: number; limit?: string },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.retryAfterSeconds = options?.retryAfterSeconds;
    this.limit = options?.limit;
  }

  /** Seconds the client should wait before retrying; sent as Retry-After on a 429. */
  readonly retryAfterSeconds: number | undefined;

  /**
   * Which limit refused a 429 (`api`, `otp-cooldown`, `sms-hourly-cap`…): the dimension of the
   * RateLimited metric, for the on-call. Never sent to the client.
   */
  readonly limit: string | undefined;
}
