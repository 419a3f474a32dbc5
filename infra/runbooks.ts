/**
 * The sections of docs/operations.md that say, for each alarm, what it means and what to do. An
 * alarm's description ends with its section's address, so the notification an on-call engineer
 * receives names the page to open; test/infra/operations.test.ts holds every alarm of the stack to
 * a section that exists.
 */
export const runbookSections = [
  'dead-letters',
  'queue-backlog',
  'worker-errors',
  'sweeper-errors',
  'ladder-wake-failed',
  'abandoned-inbound-events',
  'api-5xx',
  'api-latency',
  'receiver-errors',
  'receiver-throttles',
  'lambda-throttles',
  'dynamodb-throttles',
  'sms-cap-near',
  'sms-cap-reached',
  'sms-spend',
  'email-bounces',
  'email-complaints',
  'signups-stopped',
  'deploy-rolled-back',
] as const;

export type RunbookSection = (typeof runbookSections)[number];

/** `what` as an alarm description that ends with where its runbook is. */
export const withRunbook = (what: string, section: RunbookSection): string =>
  `${what}. Runbook: docs/operations.md#${section}`;
