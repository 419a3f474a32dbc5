import { type AttributeValue, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { documentClient } from './dynamodb.js';

/**
 * The outcome of a transactional write: done, or refused because the condition of the item at
 * `failedIndex` did not hold. `failedItem` is that item as it was, when its operation asked for it
 * with `ReturnValuesOnConditionCheckFailure: 'ALL_OLD'` (DynamoDB's wire format: the document
 * client does not convert the contents of an error).
 */
export type TransactionOutcome =
  | { ok: true }
  | { ok: false; failedIndex: number; failedItem?: Record<string, AttributeValue> };

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
      await documentClient().send(new TransactWriteCommand(input));
      return { ok: true };
    } catch (error) {
      if (!(error instanceof TransactionCanceledException)) throw error;
      const reasons = error.CancellationReasons ?? [];
      const failedIndex = reasons.findIndex((reason) => reason.Code === 'ConditionalCheckFailed');
      if (failedIndex >= 0)
        return { ok: false, failedIndex, failedItem: reasons[failedIndex]!.Item };
      if (attempt + 1 >= attempts) throw error;
      await pause(attempt);
    }
  }
}
