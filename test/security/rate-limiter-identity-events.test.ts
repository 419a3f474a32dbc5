import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { handler as verifyPhoneAccount } from '../../functions/otp/verify-phone-account.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { startOfNextMinute } from '../support/clock.js';
import { invoke } from '../support/events.js';
import { tableCounter, testOperation } from '../support/operations.js';
import { useFreshTable } from '../support/table.js';

/**
 * Who the rate limiter counts, with the events API Gateway (REST API, Lambda proxy integration,
 * stage v1) sends: what the platform validated — the id of the API key it accepted
 * (`requestContext.identity.apiKeyId`) and the connection's address (`identity.sourceIp`) —
 * never the `x-api-key` header, which the client writes (docs/api-contract.md, "Who the rate
 * limiter counts").
 */

interface Caller {
  /** Set by API Gateway only for a key it accepted on a method that requires one. */
  apiKeyId: string | null;
  sourceIp: string;
  headers?: Record<string, string>;
}

/** The proxy event of a GET, shaped field for field as API Gateway sends it. */
function apiGatewayEvent(
  caller: Caller,
  path = '/event-types',
  query: Record<string, string> | null = null,
): APIGatewayProxyEvent {
  const headers = {
    Accept: 'application/json',
    Host: 'abc123.execute-api.eu-west-1.amazonaws.com',
    'User-Agent': 'client-app/1.0',
    'X-Amzn-Trace-Id': 'Root=1-67891233-abcdef012345678912345678',
    'X-Forwarded-For': caller.sourceIp,
    'X-Forwarded-Port': '443',
    'X-Forwarded-Proto': 'https',
    ...caller.headers,
  };
  return {
    resource: path,
    path,
    httpMethod: 'GET',
    headers,
    multiValueHeaders: Object.fromEntries(
      Object.entries(headers).map(([name, value]) => [name, [value]]),
    ),
    queryStringParameters: query,
    multiValueQueryStringParameters:
      query === null
        ? null
        : Object.fromEntries(Object.entries(query).map(([name, value]) => [name, [value]])),
    pathParameters: null,
    stageVariables: null,
    body: null,
    isBase64Encoded: false,
    requestContext: {
      resourceId: 'x1y2z3',
      resourcePath: path,
      httpMethod: 'GET',
      extendedRequestId: 'Ab1CdEfGhIjKlMn=',
      requestTime: '09/Apr/2026:12:34:56 +0000',
      path: `/v1${path}`,
      accountId: '123456789012',
      protocol: 'HTTP/1.1',
      stage: 'v1',
      domainPrefix: 'abc123',
      requestTimeEpoch: 1_775_738_096_000,
      requestId: randomUUID(),
      identity: {
        cognitoIdentityPoolId: null,
        accountId: null,
        cognitoIdentityId: null,
        caller: null,
        sourceIp: caller.sourceIp,
        principalOrgId: null,
        accessKey: null,
        cognitoAuthenticationType: null,
        cognitoAuthenticationProvider: null,
        userArn: null,
        userAgent: 'client-app/1.0',
        user: null,
        apiKey: caller.apiKeyId === null ? null : 'the-key-value-api-gateway-accepted',
        apiKeyId: caller.apiKeyId,
        clientCert: null,
      },
      domainName: 'abc123.execute-api.eu-west-1.amazonaws.com',
      apiId: 'abc123',
      authorizer: null,
    },
  } as APIGatewayProxyEvent;
}

const ping = apiHandler(testOperation(), tableCounter, async () => ({ pong: true }));

/** X-RateLimit-Remaining after each request, in order. */
async function remainingAfter(callers: Caller[]): Promise<string[]> {
  const remaining = [];
  for (const caller of callers) {
    remaining.push(
      String((await invoke(ping, apiGatewayEvent(caller))).headers['x-ratelimit-remaining']),
    );
  }
  return remaining;
}

const freshKeyHeader = () => ({ 'x-api-key': randomUUID() });

beforeAll(async () => {
  await useFreshTable();
  process.env.RATE_LIMIT_PER_MINUTE = '100';
});

beforeEach(() => {
  startOfNextMinute();
});

describe('the identity the rate limiter counts, from API Gateway events', () => {
  it('counts requests under one accepted key from one address as one client, whatever x-api-key says', async () => {
    const callers = Array.from({ length: 5 }, () => ({
      apiKeyId: 'k1a2b3c4d5',
      sourceIp: '198.51.100.7',
      headers: freshKeyHeader(),
    }));

    expect(await remainingAfter(callers)).toEqual(['99', '98', '97', '96', '95']);
  });

  it('counts by source address alone when API Gateway accepted no key, whatever x-api-key says', async () => {
    const callers = Array.from({ length: 3 }, () => ({
      apiKeyId: null,
      sourceIp: '198.51.100.8',
      headers: freshKeyHeader(),
    }));

    expect(await remainingAfter(callers)).toEqual(['99', '98', '97']);
  });

  it('counts two client apps behind one address apart, by the key API Gateway accepted', async () => {
    const remaining = await remainingAfter([
      { apiKeyId: 'appone1234', sourceIp: '203.0.113.9' },
      { apiKeyId: 'appone1234', sourceIp: '203.0.113.9' },
      { apiKeyId: 'apptwo5678', sourceIp: '203.0.113.9' },
    ]);

    expect(remaining).toEqual(['99', '98', '99']);
  });

  it('counts two addresses under one key apart, even when they send the same x-api-key', async () => {
    const sameHeader = { 'x-api-key': 'one-key-shipped-in-a-mobile-app' };
    const remaining = await remainingAfter([
      { apiKeyId: 'mobile1234', sourceIp: '192.0.2.10', headers: sameHeader },
      { apiKeyId: 'mobile1234', sourceIp: '192.0.2.10', headers: sameHeader },
      { apiKeyId: 'mobile1234', sourceIp: '192.0.2.11', headers: sameHeader },
    ]);

    expect(remaining).toEqual(['99', '98', '99']);
  });

  it('keys the per-client phone lookup limit by the same identity', async () => {
    const statuses = [];
    for (let lookup = 0; lookup < 12; lookup++) {
      const event = apiGatewayEvent(
        { apiKeyId: 'k1a2b3c4d5', sourceIp: '198.51.100.20', headers: freshKeyHeader() },
        '/verify/phone',
        { phone: `+1415555${String(1000 + lookup)}` },
      );
      statuses.push((await invoke(verifyPhoneAccount, event)).status);
    }

    expect(statuses).toEqual([...Array(10).fill(200), 429, 429]);
  });
});

/**
 * The dashboard's calls reach API Gateway through the stage's CloudFront distribution
 * (infra/dashboard-site.ts): the connection API Gateway sees is CloudFront's, so its
 * `identity.sourceIp` is an edge address shared by every viewer behind that edge. CloudFront
 * adds the dashboard's own API key (an origin custom header only the distribution holds) and a
 * viewer-request function writes the viewer's address into `true-client-ip`, replacing anything
 * the viewer sent under that name. The handler trusts that header only on a request whose key
 * API Gateway accepted as the dashboard's (DASHBOARD_API_KEY_ID).
 */
describe('the identity the rate limiter counts, behind the dashboard’s CloudFront distribution', () => {
  const dashboardKeyId = 'd4shb0ardk';
  /** Two of CloudFront's origin-facing addresses. */
  const edge = { a: '130.176.12.34', b: '130.176.98.7' };

  beforeAll(() => {
    process.env.DASHBOARD_API_KEY_ID = dashboardKeyId;
  });
  afterAll(() => {
    delete process.env.DASHBOARD_API_KEY_ID;
  });

  /** A request as API Gateway receives it from CloudFront for a viewer at `viewer`. */
  const throughCloudFront = (viewer: string, edgeAddress = edge.a): Caller => ({
    apiKeyId: dashboardKeyId,
    sourceIp: edgeAddress,
    headers: {
      'X-Forwarded-For': viewer,
      Via: '2.0 0a1b2c3d4e5f.cloudfront.net (CloudFront)',
      'X-Amz-Cf-Id': randomUUID(),
      'CloudFront-Viewer-Address': `${viewer}:50123`,
      'true-client-ip': viewer,
      'x-api-key': 'the-dashboard-key-value-cloudfront-adds',
    },
  });

  it('counts two viewers apart, though CloudFront connects for both from one address', async () => {
    const remaining = await remainingAfter([
      throughCloudFront('203.0.113.50'),
      throughCloudFront('203.0.113.50'),
      throughCloudFront('2001:db8::51'),
    ]);

    expect(remaining).toEqual(['99', '98', '99']);
  });

  it('counts one viewer as one client, whichever edge address CloudFront connects from', async () => {
    const remaining = await remainingAfter([
      throughCloudFront('203.0.113.60', edge.a),
      throughCloudFront('203.0.113.60', edge.b),
    ]);

    expect(remaining).toEqual(['99', '98']);
  });

  it('ignores the viewer header on any other key: a direct caller cannot buy a fresh window with it', async () => {
    const forged = () => {
      const address = `198.18.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`;
      return { 'true-client-ip': address, 'X-Forwarded-For': address };
    };
    const remaining = await remainingAfter([
      { apiKeyId: 'appkey1234', sourceIp: '192.0.2.77', headers: forged() },
      { apiKeyId: 'appkey1234', sourceIp: '192.0.2.77', headers: forged() },
      { apiKeyId: null, sourceIp: '192.0.2.78', headers: forged() },
      { apiKeyId: null, sourceIp: '192.0.2.78', headers: forged() },
    ]);

    expect(remaining).toEqual(['99', '98', '99', '98']);
  });

  it('counts the connection when a dashboard request carries no usable viewer address', async () => {
    const noAddress = { ...throughCloudFront('203.0.113.70', edge.b), headers: {} };
    const garbled = throughCloudFront('not-an-address', edge.b);

    expect(await remainingAfter([noAddress, garbled])).toEqual(['99', '98']);
  });

  it('hands the viewer’s address, not CloudFront’s, to the operation (sessions, security notices)', async () => {
    const whoCalled = apiHandler(testOperation(), tableCounter, async (request) => ({
      address: request.sourceIp,
    }));

    const viaEdge = await invoke(whoCalled, apiGatewayEvent(throughCloudFront('203.0.113.80')));
    const direct = await invoke(
      whoCalled,
      apiGatewayEvent({
        apiKeyId: 'appkey1234',
        sourceIp: '192.0.2.90',
        headers: { 'true-client-ip': '203.0.113.80' },
      }),
    );

    expect(viaEdge.body.data).toEqual({ address: '203.0.113.80' });
    expect(direct.body.data).toEqual({ address: '192.0.2.90' });
  });
});
