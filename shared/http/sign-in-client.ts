import type { SignInClient } from '../domain/accounts/ports.js';

/**
 * Where a sign-in came from: the address API Gateway saw (never a forwarded header a client
 * writes) in full for the session list, the source the login throttle counts (an IPv6 address
 * by its /64), and the User-Agent as sent.
 */
export const signInClient = (request: {
  sourceIp: string;
  address: string;
  headers: Record<string, string>;
}): SignInClient => ({
  address: request.address,
  source: request.sourceIp,
  userAgent: request.headers['user-agent'] ?? null,
});
