import { MessageRejected, SESClient, SendEmailCommand } from '@aws-sdk/client-ses';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { SesMailer } from '../../shared/adapters/ses-mailer.js';
import { codeEmail } from '../../shared/domain/otp/templates.js';

const ses = mockClient(SESClient);
const mailer = new SesMailer(
  new SESClient({ region: 'us-east-1' }),
  'no-reply@example.com',
  'stage-email',
);

beforeEach(() => ses.reset());

describe('the SES mailer', () => {
  it('sends a code email from the configured address, through the stage’s configuration set, with its text and HTML bodies', async () => {
    ses.on(SendEmailCommand).resolves({ MessageId: 'm-1' });
    const message = codeEmail('password_reset', '042137', 10);

    await mailer.send({ to: 'ada@example.com', ...message });

    expect(ses.commandCalls(SendEmailCommand).map((call) => call.args[0].input)).toEqual([
      {
        Source: 'no-reply@example.com',
        ConfigurationSetName: 'stage-email',
        Destination: { ToAddresses: ['ada@example.com'] },
        Message: {
          Subject: { Data: 'Your password reset code', Charset: 'UTF-8' },
          Body: {
            Text: { Data: message.text, Charset: 'UTF-8' },
            Html: { Data: message.html, Charset: 'UTF-8' },
          },
        },
      },
    ]);
    expect(message.text).toContain('042137');
    expect(message.text).toContain('10 minutes');
    expect(message.html).toContain('>042137<');
  });

  it('lets a rejection surface instead of reporting the email as sent', async () => {
    ses
      .on(SendEmailCommand)
      .rejects(new MessageRejected({ message: 'Email address is not verified', $metadata: {} }));

    await expect(
      mailer.send({ to: 'ada@example.com', subject: 's', text: 't', html: '<p>t</p>' }),
    ).rejects.toThrow(MessageRejected);
  });
});
