/**
 * The sizes the stack gives its functions and queues, as plain numbers: infra/ builds the deployed
 * functions, queues and event sources from them, and the local runtime sizes its stand-ins by
 * them, so the two cannot drift apart. No CDK here: the local runtime imports this module.
 */

/**
 * Timeout and memory per surface. API functions get a full gigabyte because memory buys CPU and
 * password hashing (Argon2id) is CPU-bound; receivers must answer gateways within 5 seconds;
 * a delivery attempt waits up to 10 seconds for the endpoint, plus its bookkeeping.
 */
export const surfaceSizes = {
  api: { timeoutSeconds: 10, memoryMb: 1024 },
  'function-url': { timeoutSeconds: 10, memoryMb: 512 },
  queue: { timeoutSeconds: 30, memoryMb: 512 },
  schedule: { timeoutSeconds: 60, memoryMb: 512 },
} as const;

/** How the work queues (delivery, inbound, account code) and their event sources are sized. */
export const workQueueSizes = {
  /** Records per worker invocation. */
  batchSize: 10,
  /** Concurrent batches per queue worker: spares both the customers' endpoints and our account. */
  maxConcurrency: 5,
  /**
   * AWS's advice for SQS event sources: visibility ≥ 6× the consumer's timeout, so a message is
   * not handed to a second worker while the poller may still be retrying a throttled invoke.
   */
  visibilityTimeoutSeconds: 6 * surfaceSizes.queue.timeoutSeconds,
  /**
   * Receives before a message moves to the dead-letter queue. Retries of a failed webhook attempt
   * follow the Scheduler ladder, not redelivery: this only catches crashing messages.
   */
  maxReceiveCount: 5,
} as const;
