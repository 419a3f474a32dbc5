import { accountCodeMessageCodec } from '../adapters/account-code-message.js';
import type { AccountCodeQueue, AccountCodeRequest } from '../domain/accounts/ports.js';
import { LocalQueue, type LocalQueueOptions, type QueueWorker } from './local-queue.js';

/**
 * The local runtime's stand-in for the account-code SQS queue and its event source: each request
 * goes to the sendAccountCode handler (the module the stack deploys) after the request that
 * queued it has answered.
 *
 * `idle()` lets the local endpoints wait for queued codes to be sent, so that reading
 * `/_local/outbox` right after forgotPassword still finds its code.
 */
export class LocalAccountCodeQueue extends LocalQueue implements AccountCodeQueue {
  constructor(worker: QueueWorker, options: LocalQueueOptions = {}) {
    // A body names an email or a phone: not for the logs.
    super(
      worker,
      { queueName: 'account-code', functionName: 'sendAccountCode', logBodies: false },
      options,
    );
  }

  async request(work: AccountCodeRequest): Promise<void> {
    this.send([{ body: accountCodeMessageCodec.encode(work) }]);
  }
}
