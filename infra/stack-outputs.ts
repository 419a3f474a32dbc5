/**
 * What tools outside the stack need to find in a deployed stage, written once for both sides:
 * the stack's name, and the outputs that name each work queue and its dead-letter queue
 * (`delivery` → `DeliveryQueueArn`, `DeliveryDeadLetterQueueArn`), which `npm run redrive`
 * (bin/redrive.ts) reads to move dead letters back. Imports nothing from CDK, so the command
 * starts quickly.
 */

/** Stacks are named `<serviceName>-<stage>`. */
export const serviceName = 'AccountOtpWebhookService';

export const stackNameOf = (stage: string) => `${serviceName}-${stage}`;

/** The work queues with a dead-letter queue, as the command names them. */
export const redriveQueues = ['delivery', 'inbound', 'account-code'] as const;

/** `account-code` or `accountCode` → `AccountCode`. */
const pascal = (name: string) =>
  name
    .split(/-|(?=[A-Z])/)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('');

export function queueOutputNames(queue: string): { queueArn: string; deadLetterQueueArn: string } {
  return {
    queueArn: `${pascal(queue)}QueueArn`,
    deadLetterQueueArn: `${pascal(queue)}DeadLetterQueueArn`,
  };
}
