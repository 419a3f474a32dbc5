import type { ErrorCode } from '../domain/errors.js';

/**
 * What API Gateway answers itself, before any function runs, on AWS: each of its response types
 * that a caller can meet, with the status and error code the stack gives it (infra/service-api.ts)
 * and the OpenAPI document states (shared/http/openapi.ts). Every one is the error envelope with
 * `X-Request-Id` (the gateway's own request id) and `Cache-Control: no-store`; one that refuses
 * for a limit adds a fixed `Retry-After`: the gateway tells no window, so no `X-RateLimit-*`.
 */
export interface GatewayAnswer {
  /** API Gateway's response type (`ResponseType` of a REST API's gateway responses). */
  type: string;
  status: number;
  code: ErrorCode;
  /** The message, when not the gateway's own wording of the error. */
  message?: string;
  /** A limit refused: seconds until trying again makes sense. */
  retryAfterSeconds?: number;
}

/** The message of an unknown method or path, and of an unsigned call to a SigV4 route. */
export const gatewayNotFoundMessage =
  'No route matches this method and path (or the route needs a SigV4-signed request)';

export const gatewayAnswers: readonly GatewayAnswer[] = [
  // REST APIs answer an unknown method or path with MISSING_AUTHENTICATION_TOKEN (403); the
  // contract says 404. The same type covers an unsigned call to an IAM route, hence the message.
  {
    type: 'MISSING_AUTHENTICATION_TOKEN',
    status: 404,
    code: 'not_found',
    message: gatewayNotFoundMessage,
  },
  { type: 'RESOURCE_NOT_FOUND', status: 404, code: 'not_found' },
  { type: 'INVALID_SIGNATURE', status: 401, code: 'unauthorized' },
  { type: 'EXPIRED_TOKEN', status: 401, code: 'unauthorized' },
  { type: 'ACCESS_DENIED', status: 403, code: 'forbidden' },
  // No x-api-key header, or a value that is no key of a usage plan of this stage.
  {
    type: 'INVALID_API_KEY',
    status: 403,
    code: 'forbidden',
    message: 'This API needs the x-api-key header, holding a key of this stage',
  },
  // A request one of the web ACL's managed rules blocked (its rate rules answer 429 themselves).
  {
    type: 'WAF_FILTERED',
    status: 403,
    code: 'forbidden',
    message: 'The request was refused by the firewall of this API',
  },
  // The usage plan of the key: its rate (per second, refilled evenly) and its daily quota.
  {
    type: 'THROTTLED',
    status: 429,
    code: 'rate_limited',
    message: "Too many requests a second for this API key's usage plan",
    retryAfterSeconds: 1,
  },
  {
    type: 'QUOTA_EXCEEDED',
    status: 429,
    code: 'rate_limited',
    message: "This API key's daily quota is spent; it starts again at 00:00 UTC",
    retryAfterSeconds: 3600,
  },
  { type: 'REQUEST_TOO_LARGE', status: 413, code: 'payload_too_large' },
  // The contract answers a wrong content type with 400, never 415.
  { type: 'UNSUPPORTED_MEDIA_TYPE', status: 400, code: 'invalid_request' },
  { type: 'DEFAULT_4XX', status: 400, code: 'invalid_request' },
  // A 5xx body never carries internals, not even the gateway's own wording.
  { type: 'DEFAULT_5XX', status: 500, code: 'internal_error', message: 'Internal server error' },
];

/**
 * The web ACL's rate rules count each source over five minutes, and answer 429 with this
 * Retry-After themselves (a web ACL's custom response: a fixed body and headers).
 */
export const firewallRetryAfterSeconds = 300;
