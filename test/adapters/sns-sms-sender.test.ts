import {
  InternalErrorException,
  InvalidParameterException,
  PublishCommand,
  SNSClient,
} from '@aws-sdk/client-sns';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { SnsSmsSender } from '../../shared/adapters/sns-sms-sender.js';
import { Refusal } from '../../shared/domain/errors.js';
import { codeSms } from '../../shared/domain/otp/templates.js';

const sns = mockClient(SNSClient);
const client = new SNSClient({ region: 'us-east-1' });

beforeEach(() => {
  sns.reset();
  sns.on(PublishCommand).resolves({ MessageId: 'm-1' });
});

describe('the SNS SMS sender', () => {
  it('publishes straight to the number as a transactional SMS with the sender id', async () => {
    const text = codeSms('login', '904512', 5);

    await new SnsSmsSender(client, 'ACME').send({ to: '+447400123456', text });

    expect(sns.commandCalls(PublishCommand).map((call) => call.args[0].input)).toEqual([
      {
        PhoneNumber: '+447400123456',
        Message: '904512 is your login code. It expires in 5 minutes. Never share it.',
        MessageAttributes: {
          'AWS.SNS.SMS.SMSType': { DataType: 'String', StringValue: 'Transactional' },
          'AWS.SNS.SMS.SenderID': { DataType: 'String', StringValue: 'ACME' },
        },
      },
    ]);
  });

  it('leaves the sender id out when none is configured (countries that do not support one)', async () => {
    await new SnsSmsSender(client, undefined).send({ to: '+14155550123', text: 'hello' });

    expect(sns.commandCalls(PublishCommand)[0]?.args[0].input).toEqual({
      PhoneNumber: '+14155550123',
      Message: 'hello',
      MessageAttributes: {
        'AWS.SNS.SMS.SMSType': { DataType: 'String', StringValue: 'Transactional' },
      },
    });
  });

  it('turns a number SNS cannot text into a refusal, naming no API code or field', async () => {
    sns
      .on(PublishCommand)
      .rejects(
        new InvalidParameterException({ message: 'Phone number is opted out', $metadata: {} }),
      );

    const error = await new SnsSmsSender(client, undefined)
      .send({ to: '+14155550123', text: 'hello' })
      .catch((thrown: unknown) => thrown);

    expect(error).toBeInstanceOf(Refusal);
    expect(error).toMatchObject({ reason: 'smsUndeliverable' });
  });

  it('lets an SNS outage surface as the failure it is', async () => {
    sns.on(PublishCommand).rejects(new InternalErrorException({ message: 'boom', $metadata: {} }));

    await expect(
      new SnsSmsSender(client, undefined).send({ to: '+14155550123', text: 'hello' }),
    ).rejects.toThrow(InternalErrorException);
  });
});
