/**
 * What tools outside the stacks need to find in a deployed stage, written once for both sides:
 * the stacks' names, and the outputs that name each work queue and its dead-letter queue
 * (`delivery` → `DeliveryQueueArn`, `DeliveryDeadLetterQueueArn`), which `npm run redrive`
 * (bin/redrive.ts) reads from the data stack to move dead letters back. Imports nothing from
 * CDK, so the command starts quickly.
 */

export const serviceName = 'AccountOtpWebhookService';

/**
 * The stage's own name, `<serviceName>-<stage>`: what its resources with a fixed name, its
 * metrics' namespace, its API and its CloudWatch dashboard are named after, whichever stack holds
 * them.
 */
export const stageNameOf = (stage: string) => `${serviceName}-${stage}`;

/**
 * The stacks of a stage, in the order `cdk deploy --all` deploys them: the data it keeps, the
 * REST API itself, the developer dashboard, the service areas (infra/areas.ts), the API's stage
 * and limits, and the operations dashboard and alarms. Each is `<serviceName>-<stage>-<part>`.
 */
export const stackParts = [
  'data',
  'api',
  'dashboard',
  'accounts',
  'passkeys',
  'otp',
  'webhooks',
  'inbound',
  'edge',
  'operations',
] as const;

export type StackPart = (typeof stackParts)[number];

export const stackNameOf = (stage: string, part: StackPart) => `${stageNameOf(stage)}-${part}`;

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
