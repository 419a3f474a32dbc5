import type { SignInClient } from '../domain/accounts/ports.js';

/**
 * Where a sign-in came from, for the session list: the source IP API Gateway saw (never a
 * forwarded header a client writes) and the User-Agent as sent.
 */
export const signInClient = (request: {
  sourceIp: string;
  headers: Record<string, string>;
}): SignInClient => ({
  ipAddress: request.sourceIp,
  userAgent: request.headers['user-agent'] ?? null,
});
