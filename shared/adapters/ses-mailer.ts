import { SESClient, SendEmailCommand } from '@aws-sdk/client-ses';
import { required } from '../config.js';
import type { EmailMessage, Mailer } from '../domain/messages.js';

/** Email through SES (SendEmail with a text and an HTML part). */
export class SesMailer implements Mailer {
  constructor(
    private readonly client: SESClient,
    private readonly from: string,
  ) {}

  async send(message: EmailMessage): Promise<void> {
    await this.client.send(
      new SendEmailCommand({
        Source: this.from,
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
  mailerInstance ??= new SesMailer(new SESClient({}), required('EMAIL_FROM'));
  return mailerInstance;
}

export function useMailer(replacement: Mailer): void {
  mailerInstance = replacement;
}
