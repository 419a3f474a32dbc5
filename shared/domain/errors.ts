/**
 * The stable error codes of the API (docs/conventions.md, "Errors"). Clients branch on these,
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

/**
 * What a port's adapter found that refuses the request, said in the domain's words: which rule
 * refused, never an API error code, message or field. The HTTP layer answers it
 * (`answerOfRefusal` in shared/http/responses.ts), naming the request field the operation's
 * definition gives the refused input (`inputFields`), so a route that calls its number
 * `mobile_number` is not told about `phone_number`.
 * - smsUndeliverable: the SMS provider will not text this number (opted out, unsupported);
 * - accountGone: the account was deleted while the request was being served;
 * - accountChanged: the account changed between a sign-in's checks and its session's write;
 * - endpointsBusy: other changes to the account's webhook endpoints kept winning the write;
 * - eventTooLarge: an inbound event's body is over what storage keeps (`limit` bytes, compressed);
 * - foreignCursor: a page cursor this service did not issue.
 */
export type RefusalReason =
  | 'smsUndeliverable'
  | 'accountGone'
  | 'accountChanged'
  | 'endpointsBusy'
  | 'eventTooLarge'
  | 'foreignCursor';

/** The inputs a refusal can be about, which a definition maps to its request fields. */
export type RefusedInput = 'phone' | 'cursor';

export class Refusal extends Error {
  override readonly name = 'Refusal';
  /** The bound the refused input went over, where the reason has one (eventTooLarge). */
  readonly limit: number | undefined;

  constructor(
    readonly reason: RefusalReason,
    options?: { cause?: unknown; limit?: number },
  ) {
    super(reason, options?.cause === undefined ? undefined : { cause: options.cause });
    this.limit = options?.limit;
  }
}

/**
 * A definitive answer — a ServiceError or an adapter's Refusal — that a retry of the same request
 * would meet again, as opposed to a failure a retry may get past (storage throttled, a queue down).
 */
export const isDefinitive = (error: unknown): error is ServiceError | Refusal =>
  error instanceof ServiceError || error instanceof Refusal;
