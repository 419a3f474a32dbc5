import { optionalSetting } from '../config.js';
import { Refusal } from '../domain/errors.js';
import type { SmsMessage, SmsSender } from '../domain/messages.js';
import {
  InvalidParameterException,
  InvalidParameterValueException,
  SnsClient,
} from './sns-client.js';

/** SMS through SNS, published straight to the phone number as a transactional message. */
export class SnsSmsSender implements SmsSender {
  constructor(
    private readonly client: SnsClient,
    private readonly senderId: string | undefined,
  ) {}

  async send(message: SmsMessage): Promise<void> {
    try {
      await this.client.publish({
        PhoneNumber: message.to,
        Message: message.text,
        MessageAttributes: {
          'AWS.SNS.SMS.SMSType': { DataType: 'String', StringValue: 'Transactional' },
          ...(this.senderId
            ? { 'AWS.SNS.SMS.SenderID': { DataType: 'String', StringValue: this.senderId } }
            : {}),
        },
      });
    } catch (error) {
      // SNS refuses a number it cannot text (opted out, unsupported destination) as a bad
      // parameter: that is about the caller's number, a refusal, not a failure.
      if (
        error instanceof InvalidParameterException ||
        error instanceof InvalidParameterValueException
      ) {
        throw new Refusal('smsUndeliverable', { cause: error });
      }
      throw error;
    }
  }
}

let smsInstance: SmsSender | undefined;

/** The SMS sender of this process: SNS unless a stand-in was installed (local runtime, tests). */
export function smsSender(): SmsSender {
  smsInstance ??= new SnsSmsSender(new SnsClient(), optionalSetting('SMS_SENDER_ID'));
  return smsInstance;
}

export function useSmsSender(replacement: SmsSender): void {
  smsInstance = replacement;
}
