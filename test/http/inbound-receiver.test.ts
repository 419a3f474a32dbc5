import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { dynamoInboundAttemptLog } from '../../shared/adapters/dynamo-inbound-attempts.js';
import { useInboundQueue } from '../../shared/adapters/sqs-inbound-queue.js';
import type { ProcessingRequest } from '../../shared/domain/inbound/model.js';
import { gatewayBEvent, gatewayBHeader } from '../domain/inbound-support.js';
import { lambdaContext } from '../support/events.js';
import { useFreshTable } from '../support/table.js';

// Two active secrets, newest first, as during a rotation.
process.env.GATEWAY_B_WEBHOOK_SECRET = 'whsec_new_secret,whsec_old_secret';
const { handler } = await import('../../functions/receivers/gateway-b-webhook.js');

let queued: ProcessingRequest[];

/** The event a Lambda Function URL delivers; non-text bodies arrive base64-encoded. */
function functionUrlEvent(
  body: Buffer,
  headers: Record<string, string>,
  options: { base64?: boolean; method?: string } = {},
): APIGatewayProxyEventV2 {
  const base64 = options.base64 ?? true;
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: '/',
    rawQueryString: '',
    headers,
    body: base64 ? body.toString('base64') : body.toString('utf8'),
    isBase64Encoded: base64,
    requestContext: {
      accountId: 'anonymous',
      apiId: 'url',
      domainName: 'example.lambda-url.us-east-1.on.aws',
      domainPrefix: 'example',
      http: {
        method: options.method ?? 'POST',
        path: '/',
        protocol: 'HTTP/1.1',
        sourceIp: '198.51.100.4',
        userAgent: 'Stripe/1.0',
      },
      requestId: `req-${Math.random()}`,
      routeKey: '$default',
      stage: '$default',
      time: new Date().toUTCString(),
      timeEpoch: Date.now(),
    },
  };
}

const invoke = async (event: APIGatewayProxyEventV2) => {
  const result = await handler(event, lambdaContext);
  if (typeof result === 'string') throw new Error('expected a structured result');
  return {
    status: result.statusCode,
    body: JSON.parse(result.body ?? '') as Record<string, unknown>,
  };
};

beforeAll(async () => {
  await useFreshTable();
});

beforeEach(() => {
  queued = [];
  useInboundQueue({
    enqueue: async (request) => void queued.push(request),
    enqueueMany: async (requests) => void queued.push(...requests),
  });
});

describe('the gateway B receiver on a Function URL', () => {
  it('verifies a base64-encoded body over its decoded bytes', async () => {
    const raw = Buffer.from(
      `{"id":"evt_b64","type":"customer.created","data":{"object":{"name":"J\u00fcrgen"}}}\n`,
      'utf8',
    );
    const header = gatewayBHeader(raw.toString('utf8'), Date.now(), 'whsec_new_secret');

    const response = await invoke(functionUrlEvent(raw, { 'Stripe-Signature': header }));

    expect(response).toEqual({
      status: 200,
      body: {
        success: true,
        data: { received: true, event_id: 'evt_b64', duplicate: false, route: 'general' },
      },
    });
    expect(queued).toEqual([{ source: 'gateway-b', eventId: 'evt_b64' }]);
  });

  it('accepts the older of the two active secrets', async () => {
    const body = JSON.stringify(gatewayBEvent('invoice.paid', { id: 'in_1' }));
    const header = gatewayBHeader(body, Date.now(), 'whsec_old_secret');
    const response = await invoke(
      functionUrlEvent(Buffer.from(body), { 'gateway-b-signature': header }, { base64: false }),
    );
    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({ route: 'subscription', duplicate: false });
  });

  it('answers 401 invalid_signature for a secret that is not active, and records it', async () => {
    const body = JSON.stringify(gatewayBEvent('invoice.paid', { id: 'in_2' }));
    const event = functionUrlEvent(Buffer.from(body), {
      'stripe-signature': gatewayBHeader(body, Date.now(), 'whsec_retired'),
    });

    const response = await invoke(event);

    expect(response).toEqual({
      status: 401,
      body: {
        success: false,
        error: {
          code: 'invalid_signature',
          message: 'No v1 signature matches the body',
          details: [],
        },
      },
    });
    const { attempts } = await dynamoInboundAttemptLog.listBySource('gateway-b', { limit: 20 });
    expect(attempts.find((a) => a.requestId === event.requestContext.requestId)).toMatchObject({
      endpoint: 'handleGatewayBWebhook',
      outcome: 'invalid_signature',
      statusCode: 401,
      sourceIp: '198.51.100.4',
    });
  });

  it('answers 413 for a body over 1 MiB and 404 for another method, recording both', async () => {
    const large = functionUrlEvent(Buffer.alloc(1024 * 1024 + 1, 0x20), {});
    const get = functionUrlEvent(Buffer.alloc(0), {}, { method: 'GET' });

    expect((await invoke(large)).status).toBe(413);
    expect((await invoke(get)).status).toBe(404);

    const { attempts } = await dynamoInboundAttemptLog.listBySource('gateway-b', { limit: 20 });
    const outcomeOf = (requestId: string) =>
      attempts.find((a) => a.requestId === requestId)?.outcome;
    expect(outcomeOf(large.requestContext.requestId)).toBe('too_large');
    expect(outcomeOf(get.requestContext.requestId)).toBe('wrong_method');
  });
});
