import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { optionalSetting } from '../config.js';
import type { SmsMessage, SmsSender } from '../domain/messages.js';

/** SMS through SNS, published straight to the phone number as a transactional message. */
export class SnsSmsSender implements SmsSender {
  constructor(
    private readonly client: SNSClient,
    private readonly senderId: string | undefined,
  ) {}

  async send(message: SmsMessage): Promise<void> {
    await this.client.send(
      new PublishCommand({
        PhoneNumber: message.to,
        Message: message.text,
        MessageAttributes: {
          'AWS.SNS.SMS.SMSType': { DataType: 'String', StringValue: 'Transactional' },
          ...(this.senderId
            ? { 'AWS.SNS.SMS.SenderID': { DataType: 'String', StringValue: this.senderId } }
            : {}),
        },
      }),
    );
  }
}

let smsInstance: SmsSender | undefined;

/** The SMS sender of this process: SNS unless a stand-in was installed (local runtime, tests). */
export function smsSender(): SmsSender {
  smsInstance ??= new SnsSmsSender(new SNSClient({}), optionalSetting('SMS_SENDER_ID'));
  return smsInstance;
}

export function useSmsSender(replacement: SmsSender): void {
  smsInstance = replacement;
}
