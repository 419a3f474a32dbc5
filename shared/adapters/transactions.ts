import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { dynamo } from './dynamodb.js';
import { type Item, TransactionCanceled } from './dynamodb-client.js';

/**
 * The outcome of a transactional write: done, or refused because the condition of the item at
 * `failedIndex` did not hold. `failedItem` is that item as it was, when its operation asked for it
 * with `ReturnValuesOnConditionCheckFailure: 'ALL_OLD'`.
 */
export type TransactionOutcome =
  | { ok: true }
  | { ok: false; failedIndex: number; failedItem?: Item };

const attempts = 5;

const pause = (attempt: number) =>
  new Promise((resume) => setTimeout(resume, 10 * 2 ** attempt + Math.random() * 20));

/**
 * Runs a TransactWriteItems and reports which condition failed instead of throwing. Two
 * transactions touching one item at the same moment are both cancelled with TransactionConflict
 * (neither condition was evaluated), so those are retried with jitter until one wins and the
 * other sees its condition fail.
 */
export async function transactWrite(input: TransactWriteCommandInput): Promise<TransactionOutcome> {
  for (let attempt = 0; ; attempt++) {
    try {
      await dynamo().transactWrite(input);
      return { ok: true };
    } catch (error) {
      if (!(error instanceof TransactionCanceled)) throw error;
      const failedIndex = error.reasons.findIndex(
        (reason) => reason.code === 'ConditionalCheckFailed',
      );
      if (failedIndex >= 0) {
        return { ok: false, failedIndex, failedItem: error.reasons[failedIndex]!.item };
      }
      if (attempt + 1 >= attempts) throw error;
      await pause(attempt);
    }
  }
}
