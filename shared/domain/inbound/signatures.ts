import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Signature checks of the three senders, always over the exact bytes received: a body that was
 * parsed and re-serialised (other key order, whitespace, escapes) no longer matches, which is
 * the most common webhook-verification bug. Every comparison is constant-time; otherwise a
 * forger could learn the expected signature byte by byte from response times.
 */

/** How far a gateway B timestamp may be from now, either way (replay window). */
export const gatewayBToleranceSeconds = 300;

const hexSha256 = /^[0-9a-f]{64}$/i;

const hmac = (secret: string, ...parts: Buffer[]): Buffer => {
  const mac = createHmac('sha256', secret);
  for (const part of parts) mac.update(part);
  return mac.digest();
};

/** True when `candidate` (hex) equals the HMAC-SHA256 of `parts` under any of `secrets`. */
function matchesAnySecret(candidates: string[], secrets: string[], parts: Buffer[]): boolean {
  const given = candidates
    .filter((value) => hexSha256.test(value))
    .map((value) => Buffer.from(value, 'hex'));
  let matched = false;
  // Every secret against every candidate, without stopping early: the work done does not
  // depend on which secret or which signature matched.
  for (const secret of secrets) {
    const expected = hmac(secret, ...parts);
    for (const candidate of given) {
      if (timingSafeEqual(expected, candidate)) matched = true;
    }
  }
  return matched;
}

export type SignatureCheck = { valid: true } | { valid: false; reason: string };

const invalid = (reason: string): SignatureCheck => ({ valid: false, reason });

/**
 * Gateway A (and a bare hex HMAC in general): the header is the lower- or upper-case hex
 * HMAC-SHA256 of the body, keyed with the webhook secret.
 */
export function verifyHexHmac(
  rawBody: Buffer,
  header: string | undefined,
  secrets: string[],
): SignatureCheck {
  if (header === undefined || header.trim() === '')
    return invalid('The signature header is missing');
  if (!hexSha256.test(header.trim()))
    return invalid('The signature header is not a hex HMAC-SHA256');
  return matchesAnySecret([header.trim()], secrets, [rawBody])
    ? { valid: true }
    : invalid('The signature does not match the body');
}

/** Messaging platform: `sha256=<hex HMAC-SHA256(body, app secret)>`. */
export function verifyMessagingSignature(
  rawBody: Buffer,
  header: string | undefined,
  secrets: string[],
): SignatureCheck {
  if (header === undefined || header.trim() === '')
    return invalid('The signature header is missing');
  const [scheme, value] = header.trim().split('=', 2);
  if (scheme !== 'sha256' || value === undefined) {
    return invalid('The signature header must read sha256=<hex>');
  }
  return verifyHexHmac(rawBody, value, secrets);
}

/**
 * Gateway B: `t=<unix seconds>,v1=<hex>[,v1=<hex>…]`, each v1 an HMAC-SHA256 of `${t}.${body}`.
 * Several v1 values appear while the sender rolls its secret; one match is enough. A timestamp
 * more than the tolerance away from now is refused even with a good signature (a replay).
 */
export function verifyGatewayBSignature(
  rawBody: Buffer,
  header: string | undefined,
  secrets: string[],
  nowMs: number,
  toleranceSeconds = gatewayBToleranceSeconds,
): SignatureCheck {
  if (header === undefined || header.trim() === '')
    return invalid('The signature header is missing');
  let timestamp: string | undefined;
  const signatures: string[] = [];
  for (const element of header.split(',')) {
    const separator = element.indexOf('=');
    if (separator <= 0) continue;
    const name = element.slice(0, separator).trim();
    const value = element.slice(separator + 1).trim();
    if (name === 't') timestamp = value;
    else if (name === 'v1') signatures.push(value);
  }
  if (timestamp === undefined || !/^\d{1,12}$/.test(timestamp)) {
    return invalid('The signature header has no valid timestamp (t=)');
  }
  if (signatures.length === 0) return invalid('The signature header has no v1 signature');
  if (!matchesAnySecret(signatures, secrets, [Buffer.from(`${timestamp}.`, 'utf8'), rawBody])) {
    return invalid('No v1 signature matches the body');
  }
  if (Math.abs(nowMs / 1000 - Number(timestamp)) > toleranceSeconds) {
    return invalid(`The signature timestamp is more than ${toleranceSeconds} seconds from now`);
  }
  return { valid: true };
}
