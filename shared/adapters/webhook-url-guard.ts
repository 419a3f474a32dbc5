import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { webhookAllowPrivateNetwork } from '../config.js';
import { isDeliverableAddress } from '../domain/webhooks/address-policy.js';
import type { UrlGuard } from '../domain/webhooks/ports.js';

/**
 * Origins (`https://localhost:3443`) let through to a private address: the local webhook inbox
 * of `npm start`, and nothing else. Only the local runtime adds one; the deployed functions have
 * none, so the guard there is as strict as WEBHOOK_ALLOW_PRIVATE_NETWORK says.
 */
const exemptOrigins = new Set<string>();

export function exemptOrigin(origin: string): void {
  exemptOrigins.add(new URL(origin).origin);
}

export type ResolvedTarget =
  | { ok: true; url: URL; address: string; family: 4 | 6 }
  | { ok: false; reason: string };

/**
 * The SSRF guard: the URL must be HTTPS, and every address its host resolves to must be public
 * (a name with one private answer among public ones is refused: the attacker picks which one
 * gets used). The caller then connects to the returned address and no other, so the name cannot
 * be re-resolved to something else between check and use (DNS rebinding).
 *
 * Decimal, octal and hex host forms (https://2130706433/, https://0177.0.0.1/) never get past
 * this: the WHATWG URL parser rewrites them to dotted decimal, which is what gets classified.
 */
export async function resolveTarget(
  rawUrl: string,
  allowPrivateNetwork = webhookAllowPrivateNetwork(),
): Promise<ResolvedTarget> {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    return { ok: false, reason: 'must be an absolute URL' };
  }
  if (url.protocol !== 'https:') return { ok: false, reason: 'must use https' };
  if (url.username !== '' || url.password !== '') {
    return { ok: false, reason: 'must not contain credentials' };
  }
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  let answers: { address: string; family: number }[];
  if (isIP(host) !== 0) {
    answers = [{ address: host, family: isIP(host) }];
  } else {
    try {
      answers = await lookup(host, { all: true, verbatim: true });
    } catch {
      return { ok: false, reason: 'host name does not resolve' };
    }
  }
  const first = answers[0];
  if (first === undefined) return { ok: false, reason: 'host name does not resolve' };
  const privateAllowed = allowPrivateNetwork || exemptOrigins.has(url.origin);
  if (!answers.every((answer) => isDeliverableAddress(answer.address, privateAllowed))) {
    return {
      ok: false,
      reason: 'must resolve to a public address (not private, loopback, link-local or metadata)',
    };
  }
  return { ok: true, url, address: first.address, family: first.family === 6 ? 6 : 4 };
}

export const dnsUrlGuard: UrlGuard = {
  async check(url) {
    const target = await resolveTarget(url);
    return target.ok ? undefined : target.reason;
  },
};
