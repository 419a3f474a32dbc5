import { describe, expect, it } from 'vitest';
import { SesMailer, sesClient } from '../../shared/adapters/ses-mailer.js';
import { codeEmail } from '../../shared/domain/otp/templates.js';
import { queryRefusal, sesSent, useRecordingEndpoint } from '../support/aws-endpoint.js';

const endpoint = useRecordingEndpoint(() => sesSent());
const mailerOn = (from: string, configurationSet?: string) =>
  new SesMailer(sesClient({ endpoint: endpoint.url }), from, configurationSet);

/** The SendEmail requests SES received, as the form fields they carry. */
const sent = () =>
  endpoint.requests.splice(0).map(({ body }) => Object.fromEntries(new URLSearchParams(body)));

describe('the SES mailer', () => {
  it('sends a code email from the configured address, through the stage’s configuration set, with its text and HTML bodies', async () => {
    const message = codeEmail('password_reset', '042137', 10);

    await mailerOn('no-reply@example.com', 'stage-email').send({
      to: 'ada@example.com',
      ...message,
    });

    expect(sent()).toEqual([
      {
        Action: 'SendEmail',
        Version: '2010-12-01',
        Source: 'no-reply@example.com',
        'Destination.ToAddresses.member.1': 'ada@example.com',
        'Message.Subject.Data': 'Your password reset code',
        'Message.Subject.Charset': 'UTF-8',
        'Message.Body.Text.Data': message.text,
        'Message.Body.Text.Charset': 'UTF-8',
        'Message.Body.Html.Data': message.html,
        'Message.Body.Html.Charset': 'UTF-8',
        ConfigurationSetName: 'stage-email',
      },
    ]);
    expect(message.text).toContain('042137');
    expect(message.text).toContain('10 minutes');
    expect(message.html).toContain('>042137<');
  });

  it('sends without a configuration set when the stage has none', async () => {
    await mailerOn('no-reply@example.com').send({
      to: 'ada@example.com',
      subject: 's',
      text: 't',
      html: '<p>t</p>',
    });

    expect(sent()[0]).not.toHaveProperty('ConfigurationSetName');
  });

  it('lets a rejection surface instead of reporting the email as sent', async () => {
    endpoint.answers = [queryRefusal(400, 'MessageRejected', 'Email address is not verified')];

    await expect(
      mailerOn('no-reply@example.com').send({
        to: 'ada@example.com',
        subject: 's',
        text: 't',
        html: '<p>t</p>',
      }),
    ).rejects.toMatchObject({ name: 'MessageRejected', message: 'Email address is not verified' });
  });
});
