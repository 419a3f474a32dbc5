import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type {
  APIGatewayProxyEvent,
  APIGatewayProxyEventV2,
  APIGatewayProxyResult,
  Context,
} from 'aws-lambda';
import { dynamoClients, useDynamo } from '../adapters/dynamodb.js';
import { useRetryScheduler } from '../adapters/eventbridge-retry-scheduler.js';
import { trustCertificate } from '../adapters/https-webhook-sender.js';
import { useMailer } from '../adapters/ses-mailer.js';
import { useSmsSender } from '../adapters/sns-sms-sender.js';
import { useAccountCodeQueue } from '../adapters/sqs-account-code-queue.js';
import { useDeliveryQueue } from '../adapters/sqs-delivery-queue.js';
import { useInboundQueue } from '../adapters/sqs-inbound-queue.js';
import { exemptOrigin } from '../adapters/webhook-url-guard.js';
import { corsAllowedOrigins } from '../config.js';
import { surfaceSizes } from '../deployment-sizes.js';
import { advanceSystemClock, systemClock } from '../domain/clock.js';
import { preflightHeaders, preflightRefusedMessage } from '../http/cors.js';
import { errorResponse, type HttpResponse, successResponse } from '../http/responses.js';
import { mergedNeeds, routesByEntry } from '../http/route-needs.js';
import type { HttpRouteEntry, Route, RouteTable } from '../http/route-table.js';
import { log, useLogWriter } from '../log.js';
import { dashboardFiles } from './dashboard-files.js';
import { ensureTable, startDynamoDbLocal } from './dynamodb-local.js';
import { FaultSwitch, type StandInService, standInServices } from './faults.js';
import { freePort } from './free-port.js';
import { guardedHandler, guardItemAccess } from './item-access-guard.js';
import { functionTimeoutSeconds, lambdaContext } from './lambda-context.js';
import { LocalAccountCodeQueue } from './local-account-code-queue.js';
import { LocalDeliveryQueue, LocalRetryScheduler } from './local-delivery-queue.js';
import { LocalInboundQueue } from './local-inbound-queue.js';
import { LocalOutbox } from './local-outbox.js';
import { inboxIndexPage, inboxPage, localPageHeaders, outboxPage } from './local-pages.js';
import type { QueueWorker } from './local-queue.js';
import { localScheduleIntervalMs, runPeriodically } from './periodic.js';
import { prettyLogWriter } from './pretty-log.js';
import { inboxNamePattern, startWebhookInbox, type WebhookInbox } from './webhook-inbox.js';

export interface LocalRuntimeOptions {
  /**
   * The operations to serve: the service's table (`functions/routes.ts`), handed in because the
   * table lives in the functions layer, which nothing under shared/ imports.
   */
  table: RouteTable;
  /** HTTP port; 0 or undefined picks a free one. */
  port?: number;
  /** Where DynamoDB Local keeps its data; undefined keeps it in memory. */
  dataDirectory?: string;
  /**
   * A DynamoDB (Local) already running, used instead of starting one: its table is created if
   * missing, and it is left running on close. `dataDirectory` is then unused.
   */
  dynamoEndpoint?: string;
  /** Port of the HTTPS webhook inbox; 0 or undefined picks a free one. */
  inboxPort?: number;
  /** Prints outbox messages and the listening line. @default true */
  verbose?: boolean;
  /**
   * Delivery worker invocations running at once. On AWS each is an instance of its own; here all
   * share this process, its DynamoDB Local and the machine's cores, which a small machine may not
   * keep answering within the SDK's 3 s at the deployed 250.
   * @default deliveryWorkerSizes.maxConcurrency (as deployed)
   */
  deliveryConcurrency?: number;
}

export interface LocalRuntime {
  /** Base URL, ending in /v1. */
  baseUrl: string;
  outbox: LocalOutbox;
  /** The HTTPS webhook inbox: register `${inbox.origin}/inbox/<name>` as an endpoint. */
  inbox: WebhookInbox;
  /**
   * Resolves once the codes queued so far (signup, forgotPassword, the resends) are in the
   * outbox — what GET /_local/outbox waits for before answering.
   */
  codesSent(): Promise<void>;
  close(): Promise<void>;
}

// biome-ignore lint/suspicious/noExplicitAny: a Lambda handler's event type varies by surface.
type LambdaHandler = (event: any, context: Context) => Promise<APIGatewayProxyResult>;

/** The memory the stack gives API functions, reported in the contexts the runtime passes. */
const httpMemoryMb = surfaceSizes.api.memoryMb;

/** How long the local endpoints wait for queued account codes to be sent. */
const codeQueueWaitMs = 5_000;

/** Requests larger than Lambda's own payload limit never reach a handler. */
const maxRequestBytes = 6 * 1024 * 1024;
const projectRoot = resolve(import.meta.dirname, '..', '..');

/** Development-only values for what Secrets Manager and the stack provide on AWS. */
const localDefaults: Record<string, string> = {
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'local',
  AWS_SECRET_ACCESS_KEY: 'local',
  TABLE_NAME: 'service-local',
  EMAIL_FROM: 'no-reply@localhost',
  JWT_ISSUER: 'http://localhost/v1',
  JWT_AUDIENCE: 'account-service',
  JWT_SIGNING_KEYS: 'local-development-signing-seed-change-me',
  OTP_PEPPER: 'local-development-otp-pepper-change-me',
  GATEWAY_A_WEBHOOK_SECRET: 'local-gateway-a-secret',
  GATEWAY_B_WEBHOOK_SECRET: 'local-gateway-b-secret',
  MESSAGING_APP_SECRET: 'local-messaging-app-secret',
  MESSAGING_VERIFY_TOKEN: 'local-messaging-verify-token',
};

interface MatchedRoute {
  route: HttpRouteEntry;
  params: Record<string, string>;
}

/** A path template as API Gateway reads it: `{name}` is one segment, `{name+}` the rest. */
function compile(route: HttpRouteEntry): RegExp {
  const pattern = route.path
    .split('/')
    .map((segment) => {
      if (!segment.startsWith('{')) return segment.replace(/[.]/g, '\\.');
      const greedy = segment.endsWith('+}');
      return `(?<${segment.slice(1, greedy ? -2 : -1)}>${greedy ? '.+' : '[^/]+'})`;
    })
    .join('/');
  return new RegExp(`^${pattern}$`);
}

/** How the runtime finds the route of a request among the HTTP routes, as API Gateway does. */
function pathMatcher(httpRoutes: readonly HttpRouteEntry[]) {
  const compiled = httpRoutes.map((route) => ({ route, pattern: compile(route) }));
  return {
    /**
     * The route for a method and path; wrong-method calls to a receiver still reach it (it audits
     * them). What nothing else serves goes to the catch-all (`ANY /{proxy+}`), as on API Gateway.
     */
    match(method: string, path: string): MatchedRoute | undefined {
      let receiverOnPath: MatchedRoute | undefined;
      let catchAll: MatchedRoute | undefined;
      for (const { route, pattern } of compiled) {
        const found = pattern.exec(path);
        if (!found) continue;
        const params = { ...found.groups };
        if (route.method === 'ANY') catchAll ??= { route, params };
        else if (route.method === method) return { route, params };
        else if (route.surface === 'function-url') receiverOnPath ??= { route, params };
      }
      return receiverOnPath ?? catchAll;
    },
    /** The methods the API operations serve on a path, for a CORS preflight. */
    methodsOn(path: string): string[] {
      return compiled
        .filter(
          ({ route, pattern }) =>
            route.surface === 'api' && route.method !== 'ANY' && pattern.test(path),
        )
        .map(({ route }) => route.method);
    },
  };
}

/**
 * A query parameter as sent: `+` stays a plus (`ada+tag@example.com`, `+447911123456`), where
 * URLSearchParams reads it as a space.
 */
function literalQueryParam(url: URL, name: string): string | undefined {
  for (const pair of url.search.slice(1).split('&')) {
    const equals = pair.indexOf('=');
    if ((equals < 0 ? pair : pair.slice(0, equals)) !== name) continue;
    const value = equals < 0 ? '' : pair.slice(equals + 1);
    try {
      return decodeURIComponent(value);
    } catch {
      return value;
    }
  }
  return undefined;
}

const isTextual = (contentType: string | undefined) =>
  contentType === undefined ||
  /^(text\/|application\/([\w.+-]*\+)?(json|xml|x-www-form-urlencoded))/i.test(contentType);

function singleValueHeaders(request: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  return headers;
}

/**
 * The caller's address as API Gateway and Function URLs report it: the socket's peer, never a
 * header the client writes.
 */
const sourceAddress = (request: IncomingMessage): string =>
  request.socket.remoteAddress ?? '127.0.0.1';

/** `Accounts.Example.test:4320` → `accounts.example.test`; no Host, or a malformed one: localhost. */
function hostNameOf(host: string | undefined): string {
  const name =
    host === undefined || !URL.canParse(`http://${host}`) ? '' : new URL(`http://${host}`).hostname;
  return name === '' ? 'localhost' : name.toLowerCase();
}

/** The API Gateway REST proxy event API Gateway would send for this request (stage v1). */
function restEvent(
  request: IncomingMessage,
  url: URL,
  matched: MatchedRoute,
  body: Buffer,
  requestId: string,
): APIGatewayProxyEvent {
  const query = Object.fromEntries(url.searchParams);
  return {
    resource: matched.route.path,
    path: url.pathname.slice('/v1'.length),
    httpMethod: request.method ?? 'GET',
    headers: singleValueHeaders(request),
    multiValueHeaders: {},
    queryStringParameters: Object.keys(query).length > 0 ? query : null,
    multiValueQueryStringParameters: null,
    pathParameters: Object.keys(matched.params).length > 0 ? matched.params : null,
    stageVariables: null,
    body: body.length > 0 ? body.toString('utf8') : null,
    isBase64Encoded: false,
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      authorizer: undefined,
      protocol: 'HTTP/1.1',
      httpMethod: request.method ?? 'GET',
      // What API Gateway puts here for a caller that is not signed with IAM. The runtime
      // requires and accepts no API key (like a method deployed with apiKeyRequired=false), so
      // apiKey and apiKeyId stay null whatever x-api-key says, and the rate limiter counts the
      // socket's address alone.
      identity: {
        accessKey: null,
        accountId: null,
        apiKey: null,
        apiKeyId: null,
        caller: null,
        clientCert: null,
        cognitoAuthenticationProvider: null,
        cognitoAuthenticationType: null,
        cognitoIdentityId: null,
        cognitoIdentityPoolId: null,
        principalOrgId: null,
        sourceIp: sourceAddress(request),
        user: null,
        userAgent: request.headers['user-agent'] ?? null,
        userArn: null,
      },
      path: url.pathname,
      stage: 'v1',
      // The host the request was sent to, as API Gateway names the custom domain (or its own
      // address) that it routed the request through: how one runtime serves both hosts.
      domainName: hostNameOf(request.headers.host),
      requestId,
      requestTimeEpoch: Date.now(),
      resourceId: 'local',
      resourcePath: matched.route.path,
    },
  };
}

/** The Lambda Function URL event (payload 2.0) for this request; non-text bodies go base64. */
function functionUrlEvent(
  request: IncomingMessage,
  url: URL,
  body: Buffer,
  requestId: string,
): APIGatewayProxyEventV2 {
  const headers = singleValueHeaders(request);
  const textual = isTextual(headers['content-type']);
  const query = Object.fromEntries(url.searchParams);
  const now = new Date();
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    headers,
    queryStringParameters: Object.keys(query).length > 0 ? query : undefined,
    body: body.length > 0 ? body.toString(textual ? 'utf8' : 'base64') : undefined,
    isBase64Encoded: body.length > 0 && !textual,
    requestContext: {
      accountId: 'anonymous',
      apiId: 'local',
      domainName: url.host,
      domainPrefix: 'local',
      http: {
        method: request.method ?? 'GET',
        path: url.pathname,
        protocol: 'HTTP/1.1',
        sourceIp: sourceAddress(request),
        userAgent: request.headers['user-agent'] ?? '',
      },
      requestId,
      routeKey: '$default',
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
  };
}

/**
 * The request target as a URL on this runtime's own origin: only the path and query the client
 * sent are used, never its Host header, which may be anything and must not shape an answer.
 * Origin-form (`/v1/…`) and absolute-form (`http://host/v1/…`) targets are accepted; anything
 * else (`*`, a bare word) is undefined.
 */
function requestTarget(target: string | undefined, origin: string): URL | undefined {
  if (target === undefined) return undefined;
  let pathAndQuery = target;
  if (!target.startsWith('/')) {
    if (!URL.canParse(target)) return undefined;
    const absolute = new URL(target);
    pathAndQuery = `${absolute.pathname}${absolute.search}`;
  }
  // Appended to the origin rather than resolved against it: `//v1/x` stays a path, not a host.
  const url = `${origin}${pathAndQuery}`;
  return URL.canParse(url) ? new URL(url) : undefined;
}

/** The body, or undefined once it passes `maxRequestBytes` (the rest is left unread). */
async function readBody(request: IncomingMessage): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > maxRequestBytes) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function send(
  response: ServerResponse,
  result: HttpResponse | APIGatewayProxyResult,
  extraHeaders: Record<string, string> = {},
): void {
  // The service's clock, which the local runtime can move forward: as API Gateway's `Date` is
  // AWS's time, this is the time the service counts with.
  const headers: Record<string, string> = {
    date: new Date(systemClock.now()).toUTCString(),
    ...extraHeaders,
  };
  for (const [name, value] of Object.entries(result.headers ?? {})) headers[name] = String(value);
  const isBase64 = 'isBase64Encoded' in result && result.isBase64Encoded === true;
  response.writeHead(result.statusCode, headers);
  response.end(isBase64 ? Buffer.from(result.body, 'base64') : result.body);
}

/**
 * Every entry's handler, each held to the item families its routes declare, as its role holds
 * it on AWS (`guardItemAccess`).
 */
async function loadHandlers(routes: readonly Route[]): Promise<Map<string, LambdaHandler>> {
  const modules = await Promise.all(
    [...routesByEntry(routes)].map(async ([entry, entryRoutes]) => {
      const module = (await import(pathToFileURL(resolve(projectRoot, entry)).href)) as {
        handler: LambdaHandler;
      };
      return [entry, guardedHandler(entry, mergedNeeds(entryRoutes), module.handler)] as const;
    }),
  );
  return new Map(modules);
}

/**
 * Serves every operation at http://localhost:PORT/v1 by invoking the same handler modules the
 * stack deploys, with the events API Gateway and Function URLs would send. DynamoDB is the real
 * DynamoDB Local; email and SMS go to an in-memory outbox (GET /_local/outbox).
 */
export async function startLocalRuntime(options: LocalRuntimeOptions): Promise<LocalRuntime> {
  const { routes, httpRoutes } = options.table;
  const { match, methodsOn } = pathMatcher(httpRoutes);
  const verbose = options.verbose ?? true;
  // The functions' JSON lines, readable on a terminal; piped, they stay JSON.
  if (verbose && process.stdout.isTTY) useLogWriter(prettyLogWriter());
  for (const [name, value] of Object.entries(localDefaults)) process.env[name] ??= value;
  // The port is known before the handlers load: their configuration (the OpenAPI document's
  // servers) is read at cold start, as on AWS, and names this runtime's own address.
  const port = options.port || (await freePort());
  const origin = `http://localhost:${port}`;
  const baseUrl = `${origin}/v1`;
  process.env.PUBLIC_BASE_URLS ??= baseUrl;
  // The dashboard is served here too: the failure digests link to it.
  process.env.DASHBOARD_URL ??= `${origin}/`;

  const dynamoLocal =
    options.dynamoEndpoint === undefined
      ? await startDynamoDbLocal(await freePort(), options.dataDirectory)
      : { endpoint: options.dynamoEndpoint, stop: async () => undefined };
  process.env.DYNAMODB_ENDPOINT = dynamoLocal.endpoint;
  // Every function of the stack runs in this one process, on one DynamoDB client: on AWS each
  // concurrent instance has its own sockets, so here the client has as many as its calls need,
  // rather than the delivery worker's 250 emulated instances queueing for 64 of them (a wait
  // the SDK counts as a connection timeout). And DynamoDB Local, one Java process on the
  // machine's shared cores, can stay silent longer than DynamoDB does when a burst reaches it
  // (150 requests at once): taking 3 s of that for a failure, as on AWS, let a request past the
  // rate limiter (which fails open), repeated an increment that may have been applied, and spent
  // the retry quota all the functions here share. So it waits 8 s; the API's 10 s deadline still
  // bounds every request, and the tests of the SDK's clients hold AWS's bounds.
  useDynamo(
    dynamoClients({
      endpoint: dynamoLocal.endpoint,
      maxSockets: Number.POSITIVE_INFINITY,
      silenceTimeoutMs: 8_000,
    }),
  );
  guardItemAccess();
  const admin = new DynamoDBClient({ endpoint: dynamoLocal.endpoint });
  await ensureTable(admin, process.env.TABLE_NAME ?? localDefaults.TABLE_NAME!);
  admin.destroy();

  // The inbox's certificate is trusted and its origin let past the SSRF guard, so it can be
  // registered as is; WEBHOOK_ALLOW_PRIVATE_NETWORK stays as configured for every other URL.
  const inbox = await startWebhookInbox(options.inboxPort ?? 0).catch(async (error: unknown) => {
    await dynamoLocal.stop();
    throw explainedListenError(error, options.inboxPort ?? 0, 'LOCAL_INBOX_PORT');
  });
  trustCertificate(inbox.certificate);
  exemptOrigin(inbox.origin);
  let serveDashboard: ReturnType<typeof dashboardFiles>;
  try {
    serveDashboard = dashboardFiles(`${inbox.origin}/inbox/`);
  } catch (error) {
    await Promise.all([inbox.close(), dynamoLocal.stop()]);
    throw error;
  }

  const outbox = new LocalOutbox(verbose ? (line) => console.log(line) : () => undefined);
  // Every stand-in of an AWS service can be made to fail on demand (PUT /_local/faults).
  const faults = new FaultSwitch();
  useMailer(faults.mailer(outbox.mail));
  useSmsSender(faults.smsSender(outbox.sms));

  const handlers = await loadHandlers(routes);
  const handlerOf = (name: string) =>
    handlers.get(routes.find((route) => route.name === name)?.entry ?? '')!;
  const queues = installLocalQueues(handlerOf, faults, options.deliveryConcurrency);
  // Each `schedule` route runs on an interval, as its EventBridge rule runs it on AWS.
  const scheduled = routes.filter((route) => route.surface === 'schedule');
  const stopSweeps = scheduled.map(({ name }) =>
    runPeriodically(
      name,
      () =>
        handlerOf(name)(
          {},
          lambdaContext(name, httpMemoryMb, functionTimeoutSeconds.schedule, 'sweep'),
        ),
      localScheduleIntervalMs,
    ),
  );
  const stopWork = () => {
    for (const stop of stopSweeps) stop();
    queues.stop();
  };
  const { accountCodeQueue } = queues;

  // Node would answer a missing Host with a bare 400; the handler below answers it in the envelope.
  const server: Server = createServer({ requireHostHeader: false }, async (request, response) => {
    // Every answer names a request, as API Gateway's and the handlers' do.
    const requestId = randomUUID();
    const answer = (
      result: HttpResponse | APIGatewayProxyResult,
      extraHeaders: Record<string, string> = {},
    ) => send(response, result, { 'x-request-id': requestId, ...extraHeaders });
    try {
      if (request.httpVersion === '1.1' && request.headers.host === undefined) {
        // RFC 9112 §3.2: a server must refuse an HTTP/1.1 request without a Host header.
        answer(errorResponse('invalid_request', 'An HTTP/1.1 request needs a Host header'));
        return;
      }
      const url = requestTarget(request.url, origin);
      if (url === undefined) {
        answer(errorResponse('invalid_request', 'The request target must be a path such as /v1/…'));
        return;
      }
      // A person's browser asks for HTML and gets a page; scripts and tests get JSON.
      const forPerson =
        request.method === 'GET' && (request.headers.accept ?? '').includes('text/html');
      const { stylesheet } = serveDashboard;
      if (url.pathname === '/_local/outbox' && request.method === 'GET') {
        // Codes queued by earlier requests are sent first: `forgot-password` then `outbox` shows
        // the code, as it did when codes were sent on the request path.
        await accountCodeQueue.idle(codeQueueWaitMs);
        const entries = outbox.list(literalQueryParam(url, 'to'));
        if (forPerson) sendPage(response, outboxPage(stylesheet, entries));
        else answer(successResponse(200, entries));
        return;
      }
      if (url.pathname === '/_local/inbox') {
        // The inboxes that received something: a page for a browser, the same list as JSON.
        if (forPerson) sendPage(response, inboxIndexPage(stylesheet, inbox.origin, inbox.names()));
        else if (request.method === 'GET') answer(successResponse(200, inboxList(inbox)));
        else answer(errorResponse('not_found', 'GET /_local/inbox'));
        return;
      }
      const inboxName = /^\/_local\/inbox\/([^/]+)$/.exec(url.pathname)?.[1];
      if (inboxName !== undefined && forPerson && inboxNamePattern.test(inboxName)) {
        const page = inboxPage(
          stylesheet,
          inbox.origin,
          inboxName,
          inbox.answersWith(inboxName),
          await inbox.list(inboxName),
        );
        sendPage(response, page);
        return;
      }
      if (inboxName !== undefined) {
        await serveInbox(request, response, inbox, inboxName);
        return;
      }
      if (url.pathname === '/_local/faults') {
        await serveFaults(request, response, faults);
        return;
      }
      if (url.pathname === '/_local/process' && request.method === 'GET') {
        send(response, successResponse(200, processReport()));
        return;
      }
      if (url.pathname === '/_local/clock' && request.method === 'POST') {
        const seconds = Number(url.searchParams.get('advance_seconds'));
        if (!Number.isFinite(seconds) || seconds < 0) {
          answer(errorResponse('invalid_request', 'advance_seconds must be a non-negative number'));
          return;
        }
        // Queued codes are issued at the time their request saw, not after the jump.
        await accountCodeQueue.idle(codeQueueWaitMs);
        advanceSystemClock(seconds * 1000);
        answer(
          successResponse(200, {
            advanced_seconds: seconds,
            now: new Date(systemClock.now()).toISOString(),
          }),
        );
        return;
      }
      if (url.pathname.startsWith('/v1/') && request.method === 'OPTIONS') {
        // A CORS preflight: API Gateway answers these itself, without a function.
        const allowed = preflightHeaders(
          request.headers.origin,
          request.headers['access-control-request-method'],
          methodsOn(url.pathname.slice('/v1'.length)),
          corsAllowedOrigins(),
        );
        if (allowed === undefined) {
          answer(errorResponse('forbidden', preflightRefusedMessage));
          return;
        }
        answer({ statusCode: 204, headers: allowed, body: '' });
        return;
      }
      if (serveDashboard.serve(request, response, url.pathname)) return;
      const matched = url.pathname.startsWith('/v1/')
        ? match(request.method ?? 'GET', url.pathname.slice('/v1'.length))
        : undefined;
      if (matched === undefined) {
        answer(errorResponse('not_found', `No route for ${request.method} ${url.pathname}`));
        return;
      }
      // A body over the limit is refused as soon as it is known to be one (declared, or read so
      // far), and its connection closes: the unread rest must not be parsed as the next request.
      const body =
        Number(request.headers['content-length'] ?? 0) > maxRequestBytes
          ? undefined
          : await readBody(request);
      if (body === undefined) {
        answer(errorResponse('payload_too_large', 'The request body is too large'), {
          connection: 'close',
        });
        return;
      }
      const handler = handlers.get(matched.route.entry)!;
      const event =
        matched.route.surface === 'api'
          ? restEvent(request, url, matched, body, requestId)
          : functionUrlEvent(request, url, body, requestId);
      answer(
        await handler(
          event,
          lambdaContext(matched.route.name, httpMemoryMb, functionTimeoutSeconds.api, requestId),
        ),
      );
    } catch (error) {
      log.error('local runtime: handler crashed', { error });
      answer(errorResponse('internal_error', 'Something went wrong on our side'));
    }
  });
  // Framing Node's parser cannot read (a header without a colon, an oversized header block):
  // the error envelope, and the connection closes since nothing after it can be trusted.
  server.on('clientError', (error: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket) => {
    // As Node's documentation does: nothing to answer on a connection that is already gone.
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    // A header block over Node's limit: 431 (RFC 6585), with no body — no error code of the
    // envelope's catalogue means it, and the method that would say whether a body may follow
    // (not after HEAD) lies somewhere in the chunks already read.
    if (error.code === 'HPE_HEADER_OVERFLOW') {
      socket.end(
        'HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-length: 0\r\nconnection: close\r\n\r\n',
      );
      return;
    }
    const { statusCode, body } = errorResponse(
      'invalid_request',
      error.code === 'HPE_INVALID_METHOD'
        ? 'The request method is not an HTTP method: methods are case-sensitive (POST, not post)'
        : `The request could not be parsed as HTTP/1.1 (${error.code ?? 'malformed'})`,
    );
    // `rawPacket` is the chunk the parser failed in: the envelope goes out when it visibly starts
    // a request line (whatever its method's spelling: `post` is refused as HTTP, not as a
    // request without a body) of a method other than HEAD (whose answers have no body), else the
    // status alone, with no content type that would promise one.
    const method = requestLineMethod.exec(error.rawPacket?.toString('latin1') ?? '')?.[1];
    const envelope = method !== undefined && method.toUpperCase() !== 'HEAD';
    const sent = envelope ? body : '';
    socket.end(
      `HTTP/1.1 ${statusCode} Bad Request\r\n${envelope ? 'content-type: application/json; charset=utf-8\r\n' : ''}` +
        `content-length: ${Buffer.byteLength(sent)}\r\nx-request-id: ${randomUUID()}\r\n` +
        `connection: close\r\n\r\n${sent}`,
    );
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((listening, failed) => {
    server.once('error', failed);
    server.listen(port, '127.0.0.1', listening);
  }).catch(async (error: unknown) => {
    stopWork();
    await Promise.all([inbox.close(), dynamoLocal.stop()]);
    throw explainedListenError(error, port, 'PORT');
  });
  if (verbose) {
    console.log(`Service listening on ${baseUrl} (DynamoDB Local at ${dynamoLocal.endpoint})`);
    console.log(`Developer dashboard at ${origin}/`);
    console.log(`API reference at ${origin}/docs`);
    console.log(
      `Outbox (emails and texts, with their codes) at ${origin}/_local/outbox?to=<email or phone>`,
    );
    console.log(
      `Webhook inbox at ${inbox.origin}/inbox/<name>: register it as an endpoint URL, read what arrived at ${origin}/_local/inbox/<name>`,
    );
    console.log('First steps: docs/guide.md');
  }

  return {
    baseUrl,
    outbox,
    inbox,
    codesSent: async () => {
      await accountCodeQueue.idle(codeQueueWaitMs);
    },
    close: async () => {
      stopWork();
      await inbox.close();
      server.closeAllConnections();
      await new Promise<void>((closed) => server.close(() => closed()));
      await dynamoLocal.stop();
    },
  };
}

/** The method of a chunk that starts like a request line (`METHOD target HTTP/…`), however spelt. */
const requestLineMethod = /^(\S{1,32}) \S+ HTTP\//;

/**
 * The in-process stand-ins for the three work queues and for EventBridge Scheduler, installed
 * where the adapters would send to SQS and Scheduler, each feeding the handler module the stack
 * deploys as that queue's worker. Sending and scheduling go through `faults`, so either can be
 * made to fail as SQS or Scheduler would.
 */
function installLocalQueues(
  handlerOf: (name: string) => QueueWorker,
  faults: FaultSwitch,
  deliveryConcurrency: number | undefined,
) {
  const deliveryQueue = new LocalDeliveryQueue(
    handlerOf('deliverWebhook'),
    deliveryConcurrency === undefined ? {} : { maxConcurrency: deliveryConcurrency },
  );
  const scheduler = new LocalRetryScheduler(deliveryQueue);
  useDeliveryQueue(faults.deliveryQueue(deliveryQueue));
  useRetryScheduler(faults.retryScheduler(scheduler));
  // Accepted inbound webhooks go to the processInboundEvent handler, as SQS would deliver them.
  const inboundQueue = new LocalInboundQueue(handlerOf('processInboundEvent'));
  useInboundQueue(faults.inboundQueue(inboundQueue));
  // signup, forgotPassword and the resends queue their codes; the sendAccountCode handler sends them.
  const accountCodeQueue = new LocalAccountCodeQueue(handlerOf('sendAccountCode'));
  useAccountCodeQueue(faults.accountCodeQueue(accountCodeQueue));
  return {
    accountCodeQueue,
    stop: () => {
      scheduler.stop();
      for (const queue of [deliveryQueue, inboundQueue, accountCodeQueue]) queue.stop();
    },
  };
}

/**
 * `GET /_local/inbox`: the inboxes that received something, by name, with the URL to register
 * and the status each one answers with now (a browser gets the page listing them).
 */
function inboxList(inbox: WebhookInbox) {
  return inbox.names().map((name) => ({
    name,
    url: inbox.urlOf(name),
    answers_with: inbox.answersWith(name),
  }));
}

/**
 * `GET /_local/inbox/<name>`: what arrived, newest first, signatures checked (a browser gets a page).
 * `POST /_local/inbox/<name>` `status=503` (the page's form): the same as the PUT below, back to the page.
 * `PUT /_local/inbox/<name>` `{"status": 503}`: every later delivery gets that answer (200 again
 * to recover), to watch the retry ladder and the dashboard's failures.
 */
async function serveInbox(
  request: IncomingMessage,
  response: ServerResponse,
  inbox: WebhookInbox,
  name: string,
): Promise<void> {
  if (!inboxNamePattern.test(name)) {
    send(
      response,
      errorResponse('invalid_request', 'An inbox name is 1 to 64 letters, digits, . + - or _'),
    );
    return;
  }
  if (request.method === 'GET') {
    send(response, successResponse(200, await inbox.list(name)));
    return;
  }
  // The inbox page's form posts `status=503`, and is sent back to the page.
  const fromPage = request.method === 'POST';
  if (request.method === 'PUT' || fromPage) {
    const body = (await readBody(request))?.toString('utf8') ?? '';
    let status: unknown;
    try {
      status = fromPage
        ? Number(new URLSearchParams(body).get('status'))
        : (JSON.parse(body) as { status?: unknown }).status;
    } catch {
      // Refused below, like a missing status.
    }
    if (typeof status !== 'number' || !Number.isInteger(status) || status < 200 || status > 599) {
      send(
        response,
        errorResponse('invalid_request', 'Send {"status": N} with N a status from 200 to 599', [
          { field: 'status', message: 'must be an HTTP status from 200 to 599' },
        ]),
      );
      return;
    }
    inbox.answerWith(name, status);
    if (fromPage) {
      response.writeHead(303, { location: `/_local/inbox/${encodeURIComponent(name)}` }).end();
      return;
    }
    send(response, successResponse(200, { inbox: name, answers_with: status }));
    return;
  }
  send(response, errorResponse('not_found', 'GET or PUT /_local/inbox/<name>'));
}

function sendPage(response: ServerResponse, html: string): void {
  response.writeHead(200, localPageHeaders).end(html);
}

/**
 * `GET /_local/faults`: which stand-ins are failing, and every call each one got.
 * `PUT /_local/faults` `{"ses": true, "sqs": false}`: from now on, each service named `true`
 * fails every call as the SDK would when the service is down; `false` recovers it.
 */
async function serveFaults(
  request: IncomingMessage,
  response: ServerResponse,
  faults: FaultSwitch,
): Promise<void> {
  if (request.method === 'GET') {
    send(response, successResponse(200, faults.report()));
    return;
  }
  if (request.method !== 'PUT') {
    send(response, errorResponse('not_found', 'GET or PUT /_local/faults'));
    return;
  }
  let changes: unknown;
  try {
    changes = JSON.parse((await readBody(request))?.toString('utf8') ?? '');
  } catch {
    // Refused below, like any other body that is not an object of booleans.
  }
  const entries = typeof changes === 'object' && changes !== null ? Object.entries(changes) : [];
  const bad = entries.filter(
    ([name, value]) =>
      !standInServices.includes(name as StandInService) || typeof value !== 'boolean',
  );
  if (entries.length === 0 || bad.length > 0) {
    send(
      response,
      errorResponse(
        'invalid_request',
        `Send {"<service>": true|false} for services among ${standInServices.join(', ')}`,
        bad.map(([name]) => ({
          field: name,
          message: 'must be one of the stand-ins, as a boolean',
        })),
      ),
    );
    return;
  }
  for (const [name, value] of entries) faults.set(name as StandInService, value as boolean);
  send(response, successResponse(200, faults.report()));
}

/**
 * `GET /_local/process`: what a soak run watches for leaks — this process's memory and the
 * resources keeping its event loop alive (sockets, timers, …) by kind.
 */
function processReport() {
  const memory = process.memoryUsage();
  const activeResources: Record<string, number> = {};
  for (const kind of process.getActiveResourcesInfo()) {
    activeResources[kind] = (activeResources[kind] ?? 0) + 1;
  }
  return {
    pid: process.pid,
    uptime_seconds: Math.round(process.uptime()),
    rss_bytes: memory.rss,
    heap_used_bytes: memory.heapUsed,
    external_bytes: memory.external,
    active_resources: activeResources,
  };
}

/** A port someone else holds, said in one line that names the setting to change. */
function explainedListenError(error: unknown, port: number, setting: string): unknown {
  if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') return error;
  return new Error(
    `Port ${port} is already in use: stop what listens there, or set ${setting} to another port (0 picks a free one)`,
  );
}
