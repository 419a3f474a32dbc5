import { createHmac, randomBytes } from 'node:crypto';

/** A new signing secret: `whsec_` + base64 of 32 random bytes (Standard Webhooks' format). */
export function generateSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** The Standard Webhooks key: the bytes base64-encoded after the `whsec_` prefix. */
const standardKey = (secret: string): Buffer =>
  Buffer.from(secret.slice('whsec_'.length), 'base64');

/**
 * The signature headers of one attempt. Each secret that is live signs: during the 24 hours after
 * a rotation both the new and the previous secret do, so a receiver still holding the old one
 * keeps verifying while it switches over.
 *
 * - `X-Service-Signature`: lower-case hex HMAC-SHA256 of the body, keyed with the secret string
 *   (contract.md); several are comma-separated, newest first.
 * - `webhook-signature`: `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` per secret,
 *   space-separated (the Standard Webhooks format, which lists several natively).
 */
export function signatureHeaders(
  messageId: string,
  timestampSeconds: number,
  body: string,
  secrets: string[],
): Record<string, string> {
  const signedContent = `${messageId}.${timestampSeconds}.${body}`;
  return {
    'x-service-signature': secrets
      .map((secret) => createHmac('sha256', secret).update(body).digest('hex'))
      .join(','),
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
