import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { optionalSetting } from '../config.js';
import { Refusal } from '../domain/errors.js';
import type { SmsMessage, SmsSender } from '../domain/messages.js';
import {
  type ClientSettings,
  clientSettings,
  signingWithOneSigner,
} from './aws-client-settings.js';

/**
 * An SNS client as the service builds it (aws-client-settings.ts). A Publish that timed out after
 * it was sent is not repeated (`once-sent`): it may have texted already.
 */
export const snsClient = (settings?: ClientSettings): SNSClient =>
  signingWithOneSigner(new SNSClient(clientSettings({ retries: 'once-sent', ...settings })));

/**
 * What SNS answers for a number it will not text (opted out, unsupported destination, malformed):
 * the SDK's names for its `InvalidParameter` and `InvalidParameterValue` codes.
 */
const undeliverable = new Set(['InvalidParameterException', 'InvalidParameterValueException']);

/** SMS through SNS, published straight to the phone number as a transactional message. */
export class SnsSmsSender implements SmsSender {
  constructor(
    private readonly client: SNSClient,
    private readonly senderId: string | undefined,
  ) {}

  async send(message: SmsMessage): Promise<void> {
    try {
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
    } catch (error) {
      // A number SNS cannot text is about the caller's number: a refusal, not a failure.
      if (error instanceof Error && undeliverable.has(error.name)) {
        throw new Refusal('smsUndeliverable', { cause: error });
      }
      throw error;
    }
  }
}

let smsInstance: SmsSender | undefined;

/** The SMS sender of this process: SNS unless a stand-in was installed (local runtime, tests). */
export function smsSender(): SmsSender {
  smsInstance ??= new SnsSmsSender(snsClient(), optionalSetting('SMS_SENDER_ID'));
  return smsInstance;
}

export function useSmsSender(replacement: SmsSender): void {
  smsInstance = replacement;
}
