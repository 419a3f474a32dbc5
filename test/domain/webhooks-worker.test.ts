import type { SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler } from '../../functions/workers/deliver-webhook.js';
import { dynamoDeliveryRepository } from '../../shared/adapters/dynamo-deliveries.js';
import { dynamoEndpointRepository } from '../../shared/adapters/dynamo-webhook-endpoints.js';
import { aroundDynamoCalls } from '../../shared/adapters/dynamodb.js';
import { publishEvent } from '../../shared/adapters/event-publisher.js';
import { useRetryScheduler } from '../../shared/adapters/eventbridge-retry-scheduler.js';
import { useMailer } from '../../shared/adapters/ses-mailer.js';
import { useDeliveryQueue } from '../../shared/adapters/sqs-delivery-queue.js';
import { generateSigningSecret } from '../../shared/domain/webhooks/signing.js';
import {
  makeTestCertificate,
  type TestCertificate,
  TestReceiver,
} from '../e2e/webhooks-receiver.js';
import { lambdaContext, sqsRecord } from '../support/events.js';
import { useFreshTable } from '../support/table.js';
import { RecordingMailer, RecordingQueue, RecordingScheduler } from './webhooks-harness.js';

/**
 * The deployed worker handler with the real HTTPS client, against a receiver whose self-signed
 * certificate this process does not trust (NODE_EXTRA_CA_CERTS is read only at start-up): every
 * attempt fails at the TLS handshake, which still is an attempt — and what it counts is the point.
 */
let certificate: TestCertificate;
const receiver = new TestReceiver();
const queue = new RecordingQueue();

/** The DynamoDB operations called while set (one entry per call). */
let counting: string[] | undefined;

beforeAll(async () => {
  await useFreshTable();
  aroundDynamoCalls(async ({ operation }, next) => {
    counting?.push(operation);
    return next();
  });
  process.env.WEBHOOK_ALLOW_PRIVATE_NETWORK = 'true';
  useDeliveryQueue(queue);
  useRetryScheduler(new RecordingScheduler());
  useMailer(new RecordingMailer());
  certificate = makeTestCertificate();
  await receiver.start(certificate);
});

afterAll(async () => {
  await receiver.stop();
  certificate?.remove();
});

/** An enabled endpoint of `accountId` at the receiver's `path`, taking order.created. */
async function registerEndpoint(id: string, accountId: string, path: string, limit: number) {
  const now = new Date().toISOString();
  await dynamoEndpointRepository.create(
    {
      id,
      accountId,
      url: `${receiver.origin}${path}`,
      events: ['order.created'],
      secret: generateSigningSecret(),
      description: '',
      status: 'enabled',
      createdAt: now,
      updatedAt: now,
    },
    limit,
  );
}

describe('the deliverWebhook worker', () => {
  it('makes one attempt when SQS hands it the same message twice in a batch', async () => {
    await registerEndpoint('whk_worker1', 'usr_worker', '/hook', 1);
    await publishEvent({
      type: 'order.created',
      accountId: 'usr_worker',
      data: { order_id: 'ord_1', status: 'placed', total: 1, currency: 'EUR' },
    });
    const [first] = queue.messages.splice(0);
    const body = JSON.stringify({ delivery_id: first?.deliveryId, attempt: 1 });
    const event: SQSEvent = { Records: [sqsRecord('m-1', body), sqsRecord('m-2', body)] };

    const response = await handler(event, lambdaContext);

    expect(response).toEqual({ batchItemFailures: [] });
    expect(receiver.connections).toBe(1);
    const delivery = await dynamoDeliveryRepository.get(first?.deliveryId ?? '');
    expect(delivery?.attempts).toHaveLength(1);
    expect(delivery?.attempts[0]?.error).toMatch(/certificate/i);
    expect(delivery).toMatchObject({ status: 'pending', nextAttempt: 2 });
    expect(queue.messages).toEqual([
      { deliveryId: first?.deliveryId, attempt: 2, delaySeconds: 300 },
    ]);
  });

  it('reads the targets of a batch of attempts in one BatchGetItem, after every claim answered', async () => {
    const endpoints = 10;
    for (let index = 0; index < endpoints; index++) {
      await registerEndpoint(`whk_batch${index}`, 'usr_worker_batch', `/batch-${index}`, endpoints);
    }
    queue.messages.splice(0);
    await publishEvent({
      type: 'order.created',
      accountId: 'usr_worker_batch',
      data: { order_id: 'ord_batch', status: 'placed', total: 1, currency: 'EUR' },
    });
    const messages = queue.messages.splice(0);
    expect(messages).toHaveLength(endpoints);
    const event: SQSEvent = {
      Records: messages.map((message, index) =>
        sqsRecord(
          `m-batch-${index}`,
          JSON.stringify({ delivery_id: message.deliveryId, attempt: 1 }),
        ),
      ),
    };

    counting = [];
    const response = await handler(event, lambdaContext);
    const calls = counting;
    counting = undefined;

    expect(response).toEqual({ batchItemFailures: [] });
    // The event and the ten endpoints, read once the ten claims have all answered.
    expect(calls.filter((operation) => operation === 'BatchGetItem')).toHaveLength(1);
    const deliveries = await Promise.all(
      messages.map((message) => dynamoDeliveryRepository.get(message.deliveryId)),
    );
    expect(deliveries.map((delivery) => delivery?.attempts.length)).toEqual(
      Array(endpoints).fill(1),
    );
  });

  it('drops a malformed message instead of having SQS retry it forever', async () => {
    const response = await handler(
      { Records: [sqsRecord('m-3', '{"delivery_id":"nope"}')] },
      lambdaContext,
    );
    expect(response).toEqual({ batchItemFailures: [] });
  });
});
