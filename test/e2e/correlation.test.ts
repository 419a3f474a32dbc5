import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, dataOf } from '../../shared/http/client/api-client.js';
import type { operations } from '../../shared/http/client/api-types.js';
import { gatewayBEvent, gatewayBHeader, gatewayBSecret } from '../domain/inbound-support.js';
import { eventually } from '../support/eventually.js';
import type { LocalService } from '../support/local-service.js';
import { type LogLine, logLines } from '../support/service-logs.js';
import { type AccountClient, uniqueEmail } from './accounts-support.js';
import type { TestReceiver } from './webhooks-receiver.js';
import { order, startWebhookService, type WebhookOwner, webhookOwner } from './webhooks-support.js';

/**
 * The on-call's view of one request: every line it set off, in whichever function and however
 * many queues later, carries the id the request was answered with (docs/operations.md, "Logs").
 */

let service: LocalService;
let client: AccountClient;
let receiver: TestReceiver;
let stop: () => Promise<void>;

beforeAll(async () => {
  ({ service, client, receiver, stop } = await startWebhookService({
    LOG_LEVEL: 'info',
    // Retries one second apart: all five attempts of a failing delivery within the test.
    WEBHOOK_RETRY_DELAYS: '0,1,1,1,1',
    GATEWAY_B_WEBHOOK_SECRET: gatewayBSecret,
  }));
}, 120_000);

afterAll(async () => {
  await stop?.();
});

type EventType = operations['publishEvent']['requestBody']['content']['application/json']['type'];

const register = async (owner: WebhookOwner, path: string, events: EventType[]) =>
  dataOf(
    client.api.POST('/webhooks', {
      headers: bearer(owner.token),
      body: { url: `${receiver.origin}${path}`, events },
    }),
  );

/** The one delivery of an endpoint, once it exists. */
const deliveryOf = (owner: WebhookOwner, endpointId: string) =>
  eventually(async () => {
    const { data } = await client.api.GET('/webhooks/{id}/deliveries', {
      params: { path: { id: endpointId } },
      headers: bearer(owner.token),
    });
    return data?.data[0];
  });

const attemptLines = (deliveryId: string) =>
  logLines(service).filter(
    (line) => line.message === 'delivery attempt' && line.delivery_id === deliveryId,
  );

describe('one correlation id from the request to the worker that finishes it', {
  timeout: 90_000,
}, () => {
  it('puts the id of the API request that published an event on every attempt of its delivery, retries included', async () => {
    const owner = await webhookOwner(client);
    const endpoint = await register(owner, '/fail-correlated', ['order.created']);

    const published = await client.api.POST('/events', {
      body: { type: 'order.created', account_id: owner.userId, data: order },
    });
    const requestId = published.response.headers.get('x-request-id')!;
    expect(published.response.status).toBe(201);

    const delivery = await deliveryOf(owner, endpoint.id);
    const attempts = await eventually(async () => {
      const lines = attemptLines(delivery.id);
      return lines.length === 5 ? lines : undefined;
    });
    expect(attempts.map((line) => [line.attempt, line.result])).toEqual([
      [1, 'retry_scheduled'],
      [2, 'retry_scheduled'],
      [3, 'retry_scheduled'],
      [4, 'retry_scheduled'],
      [5, 'failed'],
    ]);
    for (const line of attempts) {
      expect(line).toMatchObject({
        level: 'INFO',
        function_name: 'deliverWebhook',
        correlation_id: requestId,
        message_id: expect.any(String),
      });
      // Each attempt is an invocation of the worker of its own, not the API's.
      expect(line.function_request_id).not.toBe(requestId);
    }
    const apiLine = logLines(service).find(
      (line) => line.message === 'request' && line.api_request_id === requestId,
    );
    expect(apiLine).toMatchObject({ function_name: 'publishEvent', correlation_id: requestId });
  });

  it('carries a receiver’s request id through inbound processing to the delivery of the event it publishes', async () => {
    const owner = await webhookOwner(client);
    const endpoint = await register(owner, '/ok-correlated', ['payment.successful']);
    const event = gatewayBEvent('payment_intent.succeeded', {
      id: `pi_${randomUUID()}`,
      amount: 1200,
      amount_received: 1200,
      currency: 'eur',
      metadata: { account_id: owner.userId },
    });
    const body = JSON.stringify(event);

    const received = await fetch(`${service.baseUrl}/gateway-b-webhook`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'stripe-signature': gatewayBHeader(body, Date.now()),
      },
      body,
    });
    const requestId = received.headers.get('x-request-id')!;
    expect(received.status).toBe(200);

    const delivery = await deliveryOf(owner, endpoint.id);
    const [attempt] = await eventually(async () => {
      const lines = attemptLines(delivery.id);
      return lines.length > 0 ? lines : undefined;
    });
    expect(attempt).toMatchObject({ result: 'delivered', correlation_id: requestId });
    const processed = logLines(service).find(
      (line) => line.message === 'inbound event processed' && line.event_id === event.id,
    );
    expect(processed).toMatchObject({
      function_name: 'processInboundEvent',
      outcome: 'processed',
      correlation_id: requestId,
    });
  });

  it('carries a signup’s request id to the worker that sends its code', async () => {
    const email = uniqueEmail();
    const signup = await client.api.POST('/auth/signup', {
      body: { name: 'Ada Lovelace', email, password: 'correct horse battery' },
    });
    const requestId = signup.response.headers.get('x-request-id')!;
    await client.codeFor(email);

    const worker: LogLine[] = logLines(service).filter(
      (line) => line.function_name === 'sendAccountCode' && line.correlation_id === requestId,
    );
    expect(worker.filter((line) => 'level' in line)).toEqual([
      expect.objectContaining({ message: 'account code request fulfilled', kind: 'signup' }),
    ]);
    // Its metric documents carry the id too: a spike on the dashboard leads to its requests.
    expect(worker.find((line) => 'OtpSent' in line)).toMatchObject({ Channel: 'email' });
  });
});
