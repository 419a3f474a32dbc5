import type { SNSClient } from '@aws-sdk/client-sns';
import { beforeAll, describe, expect, it } from 'vitest';
import { SnsSmsSender, snsClient } from '../../shared/adapters/sns-sms-sender.js';
import { Refusal } from '../../shared/domain/errors.js';
import { codeSms } from '../../shared/domain/otp/templates.js';
import {
  queryRefusal as refusal,
  snsPublished,
  useRecordingEndpoint,
} from '../support/aws-endpoint.js';

const endpoint = useRecordingEndpoint(() => snsPublished());
let client: SNSClient;

beforeAll(() => {
  client = snsClient({ endpoint: endpoint.url });
});

/** The Publish requests SNS received, as the form fields they carry. */
const published = () =>
  endpoint.requests.splice(0).map(({ body }) => Object.fromEntries(new URLSearchParams(body)));

describe('the SNS SMS sender', () => {
  it('publishes straight to the number as a transactional SMS with the sender id', async () => {
    const text = codeSms('login', '904512', 5);

    await new SnsSmsSender(client, 'ACME').send({ to: '+447400123456', text });

    expect(published()).toEqual([
      {
        Action: 'Publish',
        Version: '2010-03-31',
        PhoneNumber: '+447400123456',
        Message: '904512 is your login code. It expires in 5 minutes. Never share it.',
        'MessageAttributes.entry.1.Name': 'AWS.SNS.SMS.SMSType',
        'MessageAttributes.entry.1.Value.DataType': 'String',
        'MessageAttributes.entry.1.Value.StringValue': 'Transactional',
        'MessageAttributes.entry.2.Name': 'AWS.SNS.SMS.SenderID',
        'MessageAttributes.entry.2.Value.DataType': 'String',
        'MessageAttributes.entry.2.Value.StringValue': 'ACME',
      },
    ]);
  });

  it('leaves the sender id out when none is configured (countries that do not support one)', async () => {
    await new SnsSmsSender(client, undefined).send({ to: '+14155550123', text: 'hello' });

    expect(published()).toEqual([
      {
        Action: 'Publish',
        Version: '2010-03-31',
        PhoneNumber: '+14155550123',
        Message: 'hello',
        'MessageAttributes.entry.1.Name': 'AWS.SNS.SMS.SMSType',
        'MessageAttributes.entry.1.Value.DataType': 'String',
        'MessageAttributes.entry.1.Value.StringValue': 'Transactional',
      },
    ]);
  });

  it('turns a number SNS cannot text into a refusal, naming no API code or field', async () => {
    // The codes of the SDK's InvalidParameterException and InvalidParameterValueException.
    for (const code of ['InvalidParameter', 'ParameterValueInvalid']) {
      endpoint.answers = [refusal(400, code, 'Invalid parameter: PhoneNumber Reason: opted out')];

      const error = await new SnsSmsSender(client, undefined)
        .send({ to: '+14155550123', text: 'hello' })
        .catch((thrown: unknown) => thrown);

      expect(error, code).toBeInstanceOf(Refusal);
      expect(error, code).toMatchObject({ reason: 'smsUndeliverable' });
    }
  });

  it('lets an SNS outage surface as the failure it is, once the retries are spent', async () => {
    endpoint.answers = Array.from({ length: 3 }, () => refusal(500, 'InternalError', 'boom'));

    const error = await new SnsSmsSender(client, undefined)
      .send({ to: '+14155550123', text: 'hello' })
      .catch((thrown: unknown) => thrown);

    expect(error).toMatchObject({ name: 'InternalErrorException' });
    expect(error).not.toBeInstanceOf(Refusal);
    expect(published()).toHaveLength(3);
  });
});
