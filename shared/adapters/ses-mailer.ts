import { SESClient, SendEmailCommand } from '@aws-sdk/client-ses';
import { required, sesConfigurationSet } from '../config.js';
import type { EmailMessage, Mailer } from '../domain/messages.js';
import {
  type ClientSettings,
  clientSettings,
  signingWithOneSigner,
} from './aws-client-settings.js';

/**
 * An SES client as the service builds it (aws-client-settings.ts). A SendEmail that timed out
 * after it was sent is not repeated (`once-sent`): it may have mailed already.
 */
export const sesClient = (settings?: ClientSettings): SESClient =>
  signingWithOneSigner(new SESClient(clientSettings({ retries: 'once-sent', ...settings })));

/**
 * Email through SES (SendEmail with a text and an HTML part), through the stage's configuration
 * set: SES then counts its sends, bounces and complaints, which the stack's alarms watch.
 */
export class SesMailer implements Mailer {
  constructor(
    private readonly client: SESClient,
    private readonly from: string,
    private readonly configurationSet?: string,
  ) {}

  async send(message: EmailMessage): Promise<void> {
    await this.client.send(
      new SendEmailCommand({
        Source: this.from,
        ConfigurationSetName: this.configurationSet,
        Destination: { ToAddresses: [message.to] },
        Message: {
          Subject: { Data: message.subject, Charset: 'UTF-8' },
          Body: {
            Text: { Data: message.text, Charset: 'UTF-8' },
            Html: { Data: message.html, Charset: 'UTF-8' },
          },
        },
      }),
    );
  }
}

let mailerInstance: Mailer | undefined;

/** The mailer of this process: SES unless a stand-in was installed (local runtime, tests). */
export function mailer(): Mailer {
  mailerInstance ??= new SesMailer(sesClient(), required('EMAIL_FROM'), sesConfigurationSet());
  return mailerInstance;
}

export function useMailer(replacement: Mailer): void {
  mailerInstance = replacement;
}
