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

/**
 * The delivery worker's event source, sized for the fleet rather than for one tenant. An
 * invocation lasts as long as the slowest attempt of its batch, and an attempt may wait 10 s for
 * its endpoint, so what bounds healthy deliveries is how many invocations slow endpoints can hold:
 * at most WEBHOOK_ENDPOINT_MAX_IN_FLIGHT (10) per endpoint, and once 5 timeouts or 5xx in a row
 * open an endpoint's circuit, one probe at a time. One account at its endpoint limit (20), every
 * endpoint hanging, holds at most 20 × 10 = 200 invocations, for the ~10 s until the circuits
 * open; 250 leaves the other tenants 50 invocations even then (what the whole fleet had before),
 * about 1,500 deliveries/s at 10 records per ~0.3 s batch, and all 250 otherwise. 250 of the
 * account's 1,000 concurrent executions (docs/capacity.md: raise that quota first).
 */
export const deliveryWorkerSizes = {
  /**
   * Records per invocation: ten attempts share one claim round and one read of their targets
   * (BatchedReader); a hanging attempt holds the other nine's invocation, never their places.
   */
  batchSize: workQueueSizes.batchSize,
  /** Concurrent invocations of the delivery worker (the reason is above). */
  maxConcurrency: 250,
} as const;
