import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context, SQSRecord } from 'aws-lambda';
import { sqsRecord as queueRecord } from '../../shared/local/local-queue.js';

/** A minimal API Gateway REST proxy event, as the stage v1 integration sends it. */
export function restEvent(overrides: Partial<APIGatewayProxyEvent> = {}): APIGatewayProxyEvent {
  return {
    resource: '/test',
    path: '/test',
    httpMethod: 'POST',
    headers: { 'Content-Type': 'application/json' },
    multiValueHeaders: {},
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: null,
    stageVariables: null,
    body: null,
    isBase64Encoded: false,
    requestContext: {
      requestId: `req-${Math.random().toString(36).slice(2)}`,
      stage: 'v1',
      identity: { sourceIp: `10.0.0.${Math.floor(Math.random() * 250)}` },
    } as APIGatewayProxyEvent['requestContext'],
    ...overrides,
  };
}

export const lambdaContext = {
  awsRequestId: 'test',
  getRemainingTimeInMillis: () => 30_000,
} as Context;

type RestHandler = (
  event: APIGatewayProxyEvent,
  context: Context,
) => Promise<APIGatewayProxyResult>;

/** Invokes an API handler and reads its answer: status, headers and the parsed JSON body. */
export async function invoke(handler: RestHandler, event: APIGatewayProxyEvent) {
  const response = await handler(event, lambdaContext);
  return {
    status: response.statusCode,
    headers: response.headers ?? {},
    body: JSON.parse(response.body),
  };
}

/** One SQS record as the event source hands it to a worker, received `receiveCount` times. */
export const sqsRecord = (messageId: string, body: string, receiveCount = 1): SQSRecord =>
  queueRecord('test-queue', { messageId, body, sentAt: Date.now(), receiveCount });
