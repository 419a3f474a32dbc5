import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { required } from '../config.js';
import type { AccountCodeQueue, AccountCodeRequest } from '../domain/accounts/ports.js';
import { accountCodeMessageCodec } from './account-code-message.js';
import { sqs } from './sqs.js';

/** The account-code queue on SQS: one SendMessage per request (ACCOUNT_CODE_QUEUE_URL). */
export class SqsAccountCodeQueue implements AccountCodeQueue {
  constructor(
    private readonly client: SQSClient,
    private readonly queueUrl: string,
  ) {}

  async request(work: AccountCodeRequest): Promise<void> {
    await this.client.send(
      new SendMessageCommand({
        QueueUrl: this.queueUrl,
        MessageBody: accountCodeMessageCodec.encode(work),
      }),
    );
  }
}

let queueInstance: AccountCodeQueue | undefined;

/** The account-code queue of this process: SQS unless a stand-in was installed. */
export function accountCodeQueue(): AccountCodeQueue {
  queueInstance ??= new SqsAccountCodeQueue(sqs(), required('ACCOUNT_CODE_QUEUE_URL'));
  return queueInstance;
}

/** Installs a stand-in (the local runtime's in-process queue, tests). */
export function useAccountCodeQueue(replacement: AccountCodeQueue): void {
  queueInstance = replacement;
}
