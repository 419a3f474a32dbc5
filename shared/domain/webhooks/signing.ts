import { createHmac, randomBytes } from 'node:crypto';

/** A new signing secret: `whsec_` + base64 of 32 random bytes (Standard Webhooks' format). */
export function generateSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** The Standard Webhooks key: the bytes base64-encoded after the `whsec_` prefix. */
const standardKey = (secret: string): Buffer =>
  Buffer.from(secret.slice('whsec_'.length), 'base64');

/**
 * The signature headers of one attempt, given the live secrets newest first.
 *
 * - `X-Service-Signature`: exactly one lower-case hex HMAC-SHA256 of the body, keyed with the
 *   newest secret string. The interface document's receiver compares the whole header with one
 *   HMAC, so a second value (even during a rotation) would make it refuse every delivery.
 * - `webhook-signature`: `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` per live secret,
 *   space-separated (Standard Webhooks lists several natively): during the 24 hours after a
 *   rotation a receiver still holding the previous secret keeps verifying while it switches over.
 */
export function signatureHeaders(
  messageId: string,
  timestampSeconds: number,
  body: string,
  secrets: [string, ...string[]],
): Record<string, string> {
  const signedContent = `${messageId}.${timestampSeconds}.${body}`;
  return {
    'x-service-signature': createHmac('sha256', secrets[0]).update(body).digest('hex'),
    'webhook-id': messageId,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': secrets
      .map(
        (secret) =>
          `v1,${createHmac('sha256', standardKey(secret)).update(signedContent).digest('base64')}`,
      )
      .join(' '),
  };
}
