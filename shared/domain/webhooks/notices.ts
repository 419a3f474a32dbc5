import { log } from '../../log.js';
import type { EmailMessage } from '../messages.js';
import type { WebhookEndpoint } from './model.js';
import type { WebhookDependencies } from './ports.js';

/** The emails the outbound webhooks send an account's owner (and failure-digest.ts's digest). */

export type Notice = Omit<EmailMessage, 'to'>;

export const escapeHtml = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** Paragraphs of plain text, and the same as HTML (each already escaped where it must be). */
const notice = (subject: string, paragraphs: { text: string; html: string }[]): Notice => ({
  subject,
  text: paragraphs.map((paragraph) => paragraph.text).join('\n\n'),
  html: paragraphs.map((paragraph) => `<p>${paragraph.html}</p>`).join(''),
});

/** An endpoint was disabled after failing, without one success, for `days` days. */
export function endpointDisabledNotice(endpoint: WebhookEndpoint, days: number): Notice {
  const since = new Date(endpoint.failingSince ?? 0).toISOString();
  const enable = `PATCH /v1/webhooks/${endpoint.id} {"status":"enabled"}`;
  const recover = `POST /v1/webhooks/${endpoint.id}/recover {"since":"${since}"}`;
  return notice(`Webhook endpoint disabled: ${endpoint.url}`, [
    {
      text: `Every delivery attempt to ${endpoint.url} (endpoint ${endpoint.id}) has failed since ${since}, for more than ${days} days, so we disabled the endpoint. It gets no new events while it is disabled.`,
      html: `Every delivery attempt to <code>${escapeHtml(endpoint.url)}</code> (endpoint <code>${endpoint.id}</code>) has failed since ${since}, for more than ${days} days, so we disabled the endpoint. It gets no new events while it is disabled.`,
    },
    {
      text: `Once it works again, enable it with ${enable}: deliveries that were waiting go out then. To send again what failed meanwhile, use ${recover}.`,
      html: `Once it works again, enable it with <code>${escapeHtml(enable)}</code>: deliveries that were waiting go out then. To send again what failed meanwhile, use <code>${escapeHtml(recover)}</code>.`,
    },
  ]);
}

/**
 * Emails a notice to the account's address. The state it reports is already stored (the
 * delivery failed, the endpoint disabled) and shown by the API, so a notice that cannot be sent
 * is logged, not retried.
 */
export async function sendNotice(
  deps: Pick<WebhookDependencies, 'accounts' | 'mailer'>,
  accountId: string,
  message: Notice,
): Promise<void> {
  try {
    const email = await deps.accounts.emailOf(accountId);
    if (email === undefined) return;
    await deps.mailer.send({ to: email, ...message });
  } catch (error) {
    log.error('webhook notice not sent', { accountId, subject: message.subject, error });
  }
}
