import { createHash, randomUUID } from 'node:crypto';
import type { APIGatewayProxyEvent, APIGatewayProxyEventV2, SQSEvent } from 'aws-lambda';

/** Who API Gateway says is calling: the key it accepted, the source address, a SigV4 caller. */
export interface Caller {
  apiKey: string;
  apiKeyId: string;
  sourceIp: string;
  /** Set for AWS_IAM methods: the principal whose signature API Gateway verified. */
  iamUserArn?: string;
}

export interface RestRequest {
  method: string;
  /** The resource path as declared (`/webhooks/{id}`). */
  resource: string;
  pathParameters?: Record<string, string>;
  query?: Record<string, string>;
  headers?: Record<string, string>;
  body?: unknown;
}

/**
 * The event API Gateway's REST proxy integration sends for a request to stage v1 — every field
 * it sets, headers with the case the client used, both single- and multi-value forms.
 */
export function restProxyEvent(
  apiId: string,
  caller: Caller,
  request: RestRequest,
): APIGatewayProxyEvent {
  const path = request.resource.replace(
    /\{(\w+)\+?\}/g,
    (_, name: string) => request.pathParameters?.[name] ?? '',
  );
  const body = request.body === undefined ? null : JSON.stringify(request.body);
  const headers: Record<string, string> = {
    Accept: 'application/json',
    Host: `${apiId}.execute-api.us-east-1.amazonaws.com`,
    'User-Agent': 'artifact-test/1.0',
    'X-Amzn-Trace-Id': `Root=1-${randomUUID().replaceAll('-', '').slice(0, 24)}`,
    'X-Forwarded-For': caller.sourceIp,
    'X-Forwarded-Port': '443',
    'X-Forwarded-Proto': 'https',
    'x-api-key': caller.apiKey,
    ...(body === null ? {} : { 'Content-Type': 'application/json; charset=utf-8' }),
    ...request.headers,
  };
  const query = request.query ?? null;
  const now = new Date();
  const requestId = randomUUID();
  return {
    resource: request.resource,
    path,
    httpMethod: request.method,
    headers,
    multiValueHeaders: Object.fromEntries(
      Object.entries(headers).map(([name, value]) => [name, [value]]),
    ),
    queryStringParameters: query,
    multiValueQueryStringParameters:
      query === null
        ? null
        : Object.fromEntries(Object.entries(query).map(([name, value]) => [name, [value]])),
    pathParameters: request.pathParameters ?? null,
    stageVariables: null,
    body,
    isBase64Encoded: false,
    requestContext: {
      accountId: '123456789012',
      apiId,
      authorizer: null,
      domainName: `${apiId}.execute-api.us-east-1.amazonaws.com`,
      domainPrefix: apiId,
      extendedRequestId: `${requestId.slice(0, 8)}=`,
      httpMethod: request.method,
      identity: {
        accessKey: caller.iamUserArn === undefined ? null : 'ASIAEXAMPLE',
        accountId: caller.iamUserArn === undefined ? null : '123456789012',
        apiKey: caller.apiKey,
        apiKeyId: caller.apiKeyId,
        caller: caller.iamUserArn === undefined ? null : 'AIDAEXAMPLE',
        clientCert: null,
        cognitoAuthenticationProvider: null,
        cognitoAuthenticationType: null,
        cognitoIdentityId: null,
        cognitoIdentityPoolId: null,
        principalOrgId: null,
        sourceIp: caller.sourceIp,
        user: caller.iamUserArn === undefined ? null : 'AIDAEXAMPLE',
        userAgent: 'artifact-test/1.0',
        userArn: caller.iamUserArn ?? null,
      },
      path: `/v1${path}`,
      protocol: 'HTTP/1.1',
      requestId,
      requestTime: now.toUTCString(),
      requestTimeEpoch: now.getTime(),
      resourceId: 'abc123',
      resourcePath: request.resource,
      stage: 'v1',
    },
  };
}

export interface FunctionUrlRequest {
  method: string;
  path: string;
  query?: Record<string, string>;
  headers?: Record<string, string>;
  body?: Buffer;
}

/**
 * A Lambda Function URL event (payload 2.0): lower-case headers, the body base64-encoded unless
 * its content type is text (as the URL service does).
 */
export function functionUrlEvent(
  urlId: string,
  sourceIp: string,
  request: FunctionUrlRequest,
): APIGatewayProxyEventV2 {
  const headers: Record<string, string> = {
    host: `${urlId}.lambda-url.us-east-1.on.aws`,
    'user-agent': 'gateway/1.0',
    'x-amzn-trace-id': `Root=1-${randomUUID().replaceAll('-', '').slice(0, 24)}`,
    'x-forwarded-for': sourceIp,
    'x-forwarded-port': '443',
    'x-forwarded-proto': 'https',
    ...Object.fromEntries(
      Object.entries(request.headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]),
    ),
  };
  const textual = /^(text\/|application\/json)/.test(headers['content-type'] ?? '');
  const rawQueryString = new URLSearchParams(request.query ?? {}).toString();
  const now = new Date();
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: request.path,
    rawQueryString,
    headers,
    queryStringParameters: request.query,
    requestContext: {
      accountId: 'anonymous',
      apiId: urlId,
      domainName: headers.host!,
      domainPrefix: urlId,
      http: {
        method: request.method,
        path: request.path,
        protocol: 'HTTP/1.1',
        sourceIp,
        userAgent: headers['user-agent']!,
      },
      requestId: randomUUID(),
      routeKey: '$default',
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
    body:
      request.body === undefined ? undefined : request.body.toString(textual ? 'utf8' : 'base64'),
    isBase64Encoded: request.body !== undefined && !textual,
  };
}

/** The event an SQS event source mapping sends: one record per message, as SQS keeps them. */
export function sqsEvent(queueArn: string, region: string, messages: { body: string }[]): SQSEvent {
  const now = Date.now();
  return {
    Records: messages.map(({ body }) => ({
      messageId: randomUUID(),
      receiptHandle: randomUUID(),
      body,
      attributes: {
        ApproximateReceiveCount: '1',
        SentTimestamp: String(now),
        SenderId: 'AROAEXAMPLE:sender',
        ApproximateFirstReceiveTimestamp: String(now),
      },
      messageAttributes: {},
      md5OfBody: createHash('md5').update(body).digest('hex'),
      eventSource: 'aws:sqs',
      eventSourceARN: queueArn,
      awsRegion: region,
    })),
  };
}
