/**
 * Cross-origin access for browser client apps (docs/conventions.md, "CORS"): pages of the allowed
 * origins may call the API with a Bearer token and read its answers, rate-limit headers included.
 * No cookies are involved, so credentials mode stays off. The same rules answer preflights in the
 * local runtime and decorate every API answer.
 */

/** How long a browser may cache a preflight's answer, in seconds. */
export const preflightMaxAgeSeconds = 600;

/** Why a preflight was refused: the local runtime's answer and API Gateway's alike. */
export const preflightRefusedMessage =
  'Cross-origin request refused: the origin is not allowed or the path has no such method';

/** Request headers a browser client may send. */
export const corsAllowedHeaders = ['Authorization', 'Content-Type', 'Idempotency-Key', 'X-Api-Key'];

/** Answer headers a browser client may read besides the CORS-safelisted ones. */
export const corsExposedHeaders = [
  'Retry-After',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'X-Request-Id',
];

const isAllowed = (origin: string | undefined, allowed: readonly string[]): origin is string =>
  origin !== undefined && (allowed.includes('*') || allowed.includes(origin));

/**
 * The CORS headers of an answer to `origin`: none for a request without an Origin or from an
 * origin not allowed (the browser then keeps the answer from the page). `Vary: Origin` always,
 * since the answer depends on it and a cache must not hand one origin's answer to another.
 */
export function corsHeaders(
  origin: string | undefined,
  allowed: readonly string[],
): Record<string, string> {
  if (!isAllowed(origin, allowed)) return { vary: 'Origin' };
  return {
    'access-control-allow-origin': origin,
    'access-control-expose-headers': corsExposedHeaders.join(', '),
    vary: 'Origin',
  };
}

/**
 * A preflight's answer: the headers that let the browser send the real request, or undefined
 * when the origin is not allowed or the path has no such method (the preflight then fails).
 */
export function preflightHeaders(
  origin: string | undefined,
  requestedMethod: string | undefined,
  pathMethods: readonly string[],
  allowed: readonly string[],
): Record<string, string> | undefined {
  if (!isAllowed(origin, allowed)) return undefined;
  if (requestedMethod === undefined || !pathMethods.includes(requestedMethod.toUpperCase())) {
    return undefined;
  }
  return {
    'access-control-allow-origin': origin,
    'access-control-allow-methods': pathMethods.join(', '),
    'access-control-allow-headers': corsAllowedHeaders.join(', '),
    'access-control-max-age': String(preflightMaxAgeSeconds),
    vary: 'Origin',
  };
}
