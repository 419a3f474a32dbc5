import type {
  APIGatewayProxyEventV2,
  APIGatewayProxyStructuredResultV2,
  Context,
} from 'aws-lambda';
import { systemClock } from '../domain/clock.js';
import { Refusal, ServiceError } from '../domain/errors.js';
import { instrumented } from '../lambda/invocation.js';
import { log } from '../log.js';
import { answerBeforeDeadline } from './deadline.js';
import {
  answerOfRefusal,
  type HttpResponse,
  responseForError,
  successResponse,
} from './responses.js';
import type { HttpMethod } from './route-table.js';

/** Largest accepted inbound webhook body (1 MiB): larger is a 413. */
export const maxReceiverBodyBytes = 1024 * 1024;

/** An inbound webhook call as it arrived: the raw bytes are what signatures cover. */
export interface InboundRequest {
  method: HttpMethod;
  /** Header names are lower-cased. */
  headers: Record<string, string>;
  query: Record<string, string>;
  rawBody: Buffer;
  requestId: string;
  sourceIp: string;
  receivedAt: number;
}

/** A text/plain answer (the messaging handshake echoes its challenge this way). */
export class PlainText {
  constructor(readonly text: string) {}
}

interface ReceiverOptions {
  methods: HttpMethod[];
  /**
   * Called with a call this edge refuses before the use-case runs (a method it does not serve, a
   * body over the size limit), before the 4xx goes out; the use-case records what it refuses
   * itself (a signature, a body it cannot accept).
   */
  onRefused?: (request: InboundRequest, error: ServiceError) => Promise<void>;
}

/** What this edge refuses before the use-case runs, if anything. */
function edgeRefusal(request: InboundRequest, methods: HttpMethod[]): ServiceError | undefined {
  if (!methods.includes(request.method)) {
    return new ServiceError('not_found', `${request.method} is not served here`);
  }
  if (request.rawBody.length > maxReceiverBodyBytes) {
    return new ServiceError(
      'payload_too_large',
      `The body must be at most ${maxReceiverBodyBytes} bytes`,
      [{ field: 'body', message: `must be at most ${maxReceiverBodyBytes} bytes` }],
    );
  }
  return undefined;
}

type Handler = (
  event: APIGatewayProxyEventV2,
  context: Context,
) => Promise<APIGatewayProxyStructuredResultV2>;

function toResponse(result: unknown): HttpResponse {
  if (result instanceof PlainText) {
    return {
      statusCode: 200,
      headers: { 'content-type': 'text/plain; charset=utf-8' },
      body: result.text,
    };
  }
  return successResponse(200, result);
}

/** Every answer names its request, as the API's do: a sender's support can quote it. */
const withRequestId = (response: HttpResponse, requestId: string): HttpResponse => ({
  ...response,
  headers: { ...response.headers, 'x-request-id': requestId },
});

/** The call as the handler sees it: lower-cased headers, the exact bytes sent. */
function inboundRequest(event: APIGatewayProxyEventV2): InboundRequest {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(event.headers ?? {})) {
    if (value !== undefined) headers[name.toLowerCase()] = value;
  }
  return {
    method: event.requestContext.http.method.toUpperCase() as HttpMethod,
    headers,
    query: Object.fromEntries(
      Object.entries(event.queryStringParameters ?? {}).filter(
        (entry): entry is [string, string] => entry[1] !== undefined,
      ),
    ),
    rawBody: Buffer.from(event.body ?? '', event.isBase64Encoded ? 'base64' : 'utf8'),
    requestId: event.requestContext.requestId,
    sourceIp: event.requestContext.http.sourceIp,
    // The service's clock (movable in the local runtime): signature tolerance is judged by it.
    receivedAt: systemClock.now(),
  };
}

/**
 * A Lambda Function URL receiver. Function URLs base64-encode bodies that are not text; either
 * way the handler gets the exact bytes that were sent, never a re-serialised copy. The Function
 * URL's request id is the correlation id of everything the call sets off.
 */
export function receiverHandler(
  options: ReceiverOptions,
  run: (request: InboundRequest) => Promise<unknown>,
): Handler {
  const receive = async (event: APIGatewayProxyEventV2): Promise<HttpResponse> => {
    const request = inboundRequest(event);
    let response: HttpResponse;
    const refused = edgeRefusal(request, options.methods);
    if (refused !== undefined) {
      await options.onRefused?.(request, refused);
      response = responseForError(refused, request.requestId);
    } else {
      try {
        response = toResponse(await run(request));
      } catch (thrown) {
        const error = thrown instanceof Refusal ? answerOfRefusal(thrown, {}) : thrown;
        response = responseForError(error, request.requestId);
      }
    }
    log.info('inbound webhook', { method: request.method, status: response.statusCode });
    return withRequestId(response, request.requestId);
  };
  // Every answer within the function's timeout, a hung dependency included (deadline.ts).
  return instrumented(
    (event, context) =>
      answerBeforeDeadline(context, receive(event), event.requestContext.requestId, {
        'x-request-id': event.requestContext.requestId,
      }),
    (event) => event.requestContext.requestId,
  );
}
