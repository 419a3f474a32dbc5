import type { AccountCodeQueue, AccountCodeRequest } from '../domain/accounts/ports.js';
import { accountCodeMessageCodec } from './account-code-message.js';
import { LocalMessageQueue, type LocalMessageQueueOptions, type QueueWorker } from './local-sqs.js';

/**
 * The local runtime's stand-in for the account-code SQS queue and its event source: each message
 * goes to the sendAccountCode handler (the module the stack deploys) after the request that
 * queued it has answered, with SQS's redelivery.
 *
 * `idle()` lets the local endpoints wait for queued codes to be sent, so that reading
 * `/_local/outbox` right after forgotPassword still finds its code.
 */
export class LocalAccountCodeQueue extends LocalMessageQueue implements AccountCodeQueue {
  constructor(worker: QueueWorker, options: LocalMessageQueueOptions = {}) {
    // A body names an email or a phone: not for the logs.
    super(
      worker,
      { queueName: 'account-code', functionName: 'sendAccountCode', logBodies: false },
      options,
    );
  }

  async request(work: AccountCodeRequest): Promise<void> {
    this.send(accountCodeMessageCodec.encode(work));
  }
}
