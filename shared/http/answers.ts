import type { ErrorCode } from '../domain/errors.js';
import { type Answer, hostOf } from './operation.js';
import type { HttpRouteEntry } from './route-table.js';

/** What checking a one-time code can refuse: a wrong code, an expired one, too many tries. */
export const codeCheckErrors: readonly ErrorCode[] = [
  'invalid_otp',
  'otp_expired',
  'too_many_attempts',
];

/**
 * The operation's answer (its definition module's `answer`, which the route table attached); a
 * route without one is a mistake the document refuses to hide.
 */
export function answerOf(route: HttpRouteEntry): Answer {
  if (route.answer === undefined) {
    throw new Error(`No answer is declared for ${route.name} (export one beside its operation)`);
  }
  return route.answer;
}

/** Every error code the operation can answer, the generic ones first. */
export function errorsOf(route: HttpRouteEntry): ErrorCode[] {
  const codes = new Set<ErrorCode>();
  if (route.surface === 'function-url') {
    codes.add('invalid_request');
    if (route.method === 'POST') codes.add('invalid_signature').add('payload_too_large');
    // Any other method on a receiver's URL.
    codes.add('not_found');
  } else if (route.body !== undefined || route.query !== undefined || route.path.includes('{')) {
    codes.add('invalid_request');
  }
  if (route.surface === 'api' && route.body !== undefined) codes.add('payload_too_large');
  if (route.auth === 'user' || route.auth === 'user-if-generic') {
    codes.add('unauthorized').add('invalid_token');
  }
  const answer = answerOf(route);
  if (answer.checksCode) for (const code of codeCheckErrors) codes.add(code);
  for (const code of answer.errors ?? []) codes.add(code);
  // Through the other host's custom domain, an operation is not there (api-handler.ts).
  if (route.surface === 'api' && hostOf(route) !== undefined) codes.add('not_found');
  if (route.surface === 'api') codes.add('rate_limited');
  codes.add('internal_error');
  return [...codes];
}
