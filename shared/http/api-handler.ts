import { createHash } from 'node:crypto';
import middy, { type MiddlewareObj } from '@middy/core';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type * as v from 'valibot';
import { corsAllowedOrigins, customDomainNames, rateLimitPerMinute } from '../config.js';
import { systemClock } from '../domain/clock.js';
import { ServiceError } from '../domain/errors.js';
import { metrics } from '../domain/metrics.js';
import type { PageOf } from '../domain/pages.js';
import type { Principal } from '../domain/principal.js';
import {
  consume,
  PendingHit,
  type RateLimitDecision,
  rateLimited,
  routeLimited,
  uncounted,
  type WindowCounter,
} from '../domain/rate-limit.js';
import { instrumented } from '../lambda/invocation.js';
import { log } from '../log.js';
import { callerAddress, countingSource } from './caller-address.js';
import { corsHeaders } from './cors.js';
import { answerBeforeDeadline } from './deadline.js';
import {
  type ApiOperation,
  type ApiRequest,
  type Auth,
  type AuthenticatedRequest,
  hostOf,
  type Output,
  type RouteLimit,
  takesBearerToken,
} from './operation.js';
import {
  type HttpResponse,
  type InputFields,
  type PageMeta,
  responseForError,
  successResponse,
} from './responses.js';
import { parseRequestPart } from './validate.js';

/** Largest accepted API request body (docs/conventions.md): larger is a 413. */
export const maxApiBodyBytes = 64 * 1024;

type Schema = v.GenericSchema;

/** Resolves the Authorization header to a principal or throws unauthorized/invalid_token. */
type Authenticate = (authorization: string | undefined) => Promise<Principal>;

/** A page of a list, answered as `data` plus `meta`. */
export class Page<TItem> {
  constructor(
    readonly items: TItem[],
    readonly meta: PageMeta,
  ) {}

  /** A list's page as answered: each item through `view`, and the page's place in its list. */
  static of<TFound, TItem>(
    found: PageOf<TFound>,
    perPage: number,
    view: (item: TFound) => TItem,
  ): Page<TItem> {
    return new Page(
      found.items.map((item) => view(item)),
      { page: found.page, per_page: perPage, total: found.total, next_cursor: found.next ?? null },
    );
  }
}

/**
 * A JSON document answered as it is, without the envelope: for documents that standard clients
 * fetch (the JWKS, the OpenAPI document). Serialized once, when made: a document that does not
 * change (the OpenAPI document, about 200 KiB) is made once per cold start, not per request.
 */
export class Document {
  readonly text: string;
  constructor(
    body: unknown,
    readonly headers: Record<string, string> = {},
  ) {
    this.text = JSON.stringify(body);
  }
}

/**
 * What a handler's stack is built with besides its definition: the counter of the rate limits
 * and, for a route that takes a Bearer token, how a token becomes a principal.
 */
export type Edge<TAuth extends Auth> = { counter: WindowCounter } & (TAuth extends
  | 'user'
  | 'user-if-generic'
  ? { authenticate: Authenticate }
  : { authenticate?: undefined });

/** The request a use-case gets: with its principal on a `user` route. */
type RequestOf<TAuth extends Auth, TBody, TQuery, TParams> = TAuth extends 'user'
  ? AuthenticatedRequest<Output<TBody>, Output<TQuery>, Output<TParams>>
  : ApiRequest<Output<TBody>, Output<TQuery>, Output<TParams>>;

type ApiEvent = APIGatewayProxyEvent;
type Handler = (event: ApiEvent, context: Context) => Promise<APIGatewayProxyResult>;

interface State {
  headers: Record<string, string>;
  requestId: string;
  sourceIp: string;
  address: string;
  client: string;
  rateLimit?: RateLimitDecision;
  /** The per-client hit, when the use-case counts it (`countsOwnHit`). */
  hit?: PendingHit;
  /** The route limit's hit, when the use-case counts it (`countedByUseCase`). */
  routeHit?: PendingHit;
  principal?: Principal;
  startedAt: number;
}

/** Per-invocation state the middlewares share, keyed by the event object. */
const states = new WeakMap<object, State>();
const stateOf = (event: object): State => {
  const state = states.get(event);
  if (state === undefined) throw new Error('request state missing: requestState() must run first');
  return state;
};

function lowerCaseHeaders(headers: ApiEvent['headers'] | null | undefined): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (value !== undefined) result[name.toLowerCase()] = value;
  }
  return result;
}

/**
 * `APPLICATION/JSON ; Charset=UTF-8` as `application/json; charset=UTF-8`: type, subtype and
 * parameter names are case-insensitive (RFC 9110 §8.3.1), and the JSON parser compares them as
 * written.
 */
function normalisedMediaType(contentType: string): string {
  const [type = '', ...parameters] = contentType.split(';').map((part) => part.trim());
  return [
    type.toLowerCase(),
    ...parameters.map((parameter) => {
      const equals = parameter.indexOf('=');
      return equals < 0
        ? parameter.toLowerCase()
        : `${parameter.slice(0, equals).trim().toLowerCase()}=${parameter.slice(equals + 1).trim()}`;
    }),
  ].join('; ');
}

/** Read once per cold start: a bad value fails the function's start, not an answer. */
const allowedOrigins = corsAllowedOrigins();
const domainNames = customDomainNames();

/**
 * What every API answer carries besides its own headers: its request id, the OWASP REST security
 * headers, `Cache-Control: no-store` (tokens, profiles and errors are never cached; documents
 * meant for caching set their own), and CORS for the allowed browser origins.
 */
function answerHeaders(requestId: string, origin: string | undefined): Record<string, string> {
  return {
    'x-request-id': requestId,
    'cache-control': 'no-store',
    'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
    'referrer-policy': 'no-referrer',
    'strict-transport-security': 'max-age=31536000; includeSubDomains',
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    ...corsHeaders(origin, allowedOrigins),
  };
}

/**
 * Who the rate limiter counts (docs/api-contract.md, "Who the rate limiter counts"): only what API
 * Gateway validated — the id of the API key it accepted (`identity.apiKeyId`, set only on a method that
 * requires a key, for a key of a usage plan) together with the connection's address
 * (`identity.sourceIp`, an IPv6 one by its /64: `countingSource`); the address alone when no key
 * was accepted. Never the `x-api-key`
 * header: a client that sent a fresh value with every request got a fresh window every time,
 * which made phone-number enumeration through GET /v1/verify/phone unlimited. Key and address
 * together, because a client app's key ships inside the app: counted by key alone, one abuser
 * would spend the window of every user of that app.
 */
const clientOf = (apiKeyId: string | null, sourceIp: string): string =>
  apiKeyId === null || apiKeyId === '' ? `ip:${sourceIp}` : `key:${apiKeyId}|ip:${sourceIp}`;

/**
 * Normalises headers, remembers the request id, puts the headers of every answer on the response
 * and logs one line per request (its ids are in the line's context: shared/lambda/invocation.ts).
 */
function requestState(): MiddlewareObj<ApiEvent, HttpResponse> {
  const finish = (event: ApiEvent, response: HttpResponse | null | undefined) => {
    const state = stateOf(event);
    log.info('request', {
      method: event.httpMethod,
      resource: event.resource,
      path: event.path,
      status: response?.statusCode,
      duration_ms: Date.now() - state.startedAt,
    });
  };
  const decorate = (event: ApiEvent, response: HttpResponse | null | undefined) => {
    if (!response) return;
    const state = stateOf(event);
    // The answer's own headers win: a document sets its own Cache-Control.
    response.headers = {
      ...answerHeaders(state.requestId, state.headers.origin),
      ...response.headers,
    };
    finish(event, response);
  };
  return {
    before: ({ event }) => {
      const headers = lowerCaseHeaders(event.headers);
      if (headers['content-type'] !== undefined) {
        headers['content-type'] = normalisedMediaType(headers['content-type']);
      }
      event.headers = headers;
      const identity = event.requestContext?.identity;
      const address = callerAddress(identity, headers);
      const sourceIp = countingSource(address);
      states.set(event, {
        headers,
        requestId: event.requestContext?.requestId ?? 'local',
        sourceIp,
        address,
        client: clientOf(identity?.apiKeyId ?? null, sourceIp),
        startedAt: Date.now(),
      });
    },
    after: ({ event, response }) => decorate(event, response),
    onError: ({ event, response }) => decorate(event, response),
  };
}

/**
 * The per-client fixed window (docs/conventions.md, "Rate limits"), counted for `clientOf`. Every
 * response carries the X-RateLimit-* headers, a request let through uncounted too (`uncounted`).
 * With `countsOwnHit`, the hit is handed to the use-case uncounted, and counted here afterwards
 * only if the use-case's write did not count it.
 */
function rateLimit(
  counter: WindowCounter,
  countsOwnHit: boolean,
): MiddlewareObj<ApiEvent, HttpResponse> {
  type Request = { event: ApiEvent; response: HttpResponse | null | undefined };
  const addHeaders = (event: ApiEvent, response: HttpResponse | null | undefined) => {
    const decision = stateOf(event).rateLimit;
    if (decision === undefined || !response) return;
    response.headers['x-ratelimit-limit'] = String(decision.limit);
    response.headers['x-ratelimit-remaining'] = String(decision.remaining);
    response.headers['x-ratelimit-reset'] = String(decision.reset);
  };
  /** Counts a hit the use-case left uncounted; false when the counter could not be reached. */
  const countAlone = async (hit: PendingHit, requestId: string) => {
    try {
      await hit.count();
      return true;
    } catch (error) {
      // Fail open, as when counting before: the usage plan stays as the backstop.
      log.warn('rate limiter unavailable', { requestId, error });
      return false;
    }
  };
  /** Settles the hits the use-case was handed; a request over a limit is answered 429. */
  const settle = async (request: Request) => {
    const state = stateOf(request.event);
    if (state.hit !== undefined) {
      const counted = await countAlone(state.hit, state.requestId);
      state.rateLimit = counted ? state.hit.decision : state.hit.uncounted();
      if (state.rateLimit?.allowed === false) {
        request.response = limitedResponse(
          rateLimited(state.rateLimit, state.hit.window.scope),
          state.requestId,
        );
      }
    }
    const { routeHit } = state;
    if (routeHit !== undefined && (await countAlone(routeHit, state.requestId))) {
      // A route limit shows in the headers only when it refuses.
      if (routeHit.decision?.allowed === false) {
        state.rateLimit = routeHit.decision;
        request.response = limitedResponse(
          routeLimited(routeHit.decision, routeHit.window.scope),
          state.requestId,
        );
      }
    }
  };
  return {
    before: async ({ event }) => {
      const state = stateOf(event);
      const window = { scope: 'api', limit: rateLimitPerMinute(), windowSeconds: 60 };
      if (countsOwnHit) {
        state.hit = new PendingHit(counter, window, state.client, systemClock.now());
        return;
      }
      try {
        state.rateLimit = await consume(counter, window, state.client, systemClock.now());
      } catch (error) {
        // Fail open: the usage plan on API Gateway stays as the backstop.
        log.warn('rate limiter unavailable', { error });
        state.rateLimit = uncounted(window, systemClock.now());
        return;
      }
      if (!state.rateLimit.allowed) throw rateLimited(state.rateLimit, window.scope);
    },
    after: async (request) => {
      await settle(request);
      addHeaders(request.event, request.response);
    },
    onError: async (request) => {
      await settle(request);
      addHeaders(request.event, request.response);
    },
  };
}

const digest = (value: string) => createHash('sha256').update(value).digest('hex').slice(0, 32);

/** Counts one hit on a route's own limit; a refusal reports that limit in the headers. */
async function enforceRouteLimit<TRequest>(
  counter: WindowCounter,
  routeLimit: RouteLimit<TRequest>,
  request: TRequest,
  state: State,
): Promise<void> {
  let decision: RateLimitDecision;
  try {
    decision = await consume(
      counter,
      routeLimit,
      digest(routeLimit.key(request)),
      systemClock.now(),
    );
  } catch (error) {
    // Fail open like the per-client limit; the OTP engine's own caps are conditional writes.
    log.warn('route limiter unavailable', { scope: routeLimit.scope, error });
    return;
  }
  if (!decision.allowed) {
    state.rateLimit = decision;
    throw routeLimited(decision, routeLimit.scope);
  }
}

/** Counts a 429 by the limit that refused it (the RateLimited metric). */
function countRefusal(error: unknown): void {
  metrics.count('RateLimited', {
    Limit: (error instanceof ServiceError ? error.limit : undefined) ?? 'unnamed',
  });
}

/** The 429 answer of a limit that refused after the use-case ran, counted like a thrown one. */
function limitedResponse(error: ServiceError, requestId: string): HttpResponse {
  countRefusal(error);
  return responseForError(error, requestId);
}

/**
 * Maps whatever was thrown to the error envelope (5xx bodies stay generic), and counts each 429
 * by the limit that refused it.
 */
function errorEnvelope(inputFields?: InputFields): MiddlewareObj<ApiEvent, HttpResponse> {
  return {
    onError: (request) => {
      const { error } = request;
      request.response = responseForError(error, stateOf(request.event).requestId, inputFields);
      if (request.response.statusCode === 429) countRefusal(error);
    },
  };
}

/**
 * Two hosts (docs/deployment.md, "Custom domains"): a request that came through the custom domain
 * of the other host is answered 404, as for a path no operation serves — before its body or
 * credentials are read, so the wrong host tells nothing of either, and counted in the caller's
 * window like any 404. The domain is the one API Gateway routed the request through
 * (`requestContext.domainName`: it matched the custom domain by the TLS name and Host), never a
 * forwarding header. The stage's own address serves every operation (the dashboard relays there).
 */
function servedOnItsHost(operation: ApiOperation): MiddlewareObj<ApiEvent, HttpResponse> {
  const host = hostOf(operation);
  const foreignDomains = Object.entries(domainNames)
    .filter(([other]) => host !== undefined && other !== host)
    .map(([, domain]) => domain);
  const ownDomain = host === undefined ? undefined : domainNames[host];
  const where = ownDomain === undefined ? '' : `: it is served on https://${ownDomain}/v1`;
  return {
    before: ({ event }) => {
      const domain = event.requestContext?.domainName?.toLowerCase();
      if (domain !== undefined && foreignDomains.includes(domain)) {
        throw new ServiceError(
          'not_found',
          `No operation serves this method and path on this host${where}`,
        );
      }
    },
  };
}

/** Refuses bodies over the limit before anything parses them. */
function bodyLimit(): MiddlewareObj<ApiEvent, HttpResponse> {
  return {
    before: ({ event }) => {
      if (
        event.body &&
        Buffer.byteLength(event.body, event.isBase64Encoded ? 'base64' : 'utf8') > maxApiBodyBytes
      ) {
        throw new ServiceError(
          'payload_too_large',
          `The request body must be at most ${maxApiBodyBytes} bytes`,
          [{ field: 'body', message: `must be at most ${maxApiBodyBytes} bytes` }],
        );
      }
    },
  };
}

/**
 * An API operation's handler, built from its definition: parses and validates the request, applies
 * the rate limits, authenticates a route that takes a Bearer token (before the body is read), runs
 * the use-case and wraps its result in the success envelope (a `Page` adds `meta`).
 */
export function apiHandler<
  TBody extends Schema | undefined,
  TQuery extends Schema | undefined,
  TParams extends Schema | undefined,
  TAuth extends Auth,
>(
  operation: ApiOperation<TBody, TQuery, TParams, TAuth>,
  edge: Edge<TAuth>,
  run: (request: RequestOf<TAuth, TBody, TQuery, TParams>) => Promise<unknown>,
): Handler {
  const { counter } = edge;
  const authenticate: Authenticate | undefined = edge.authenticate;
  // The types demand both; a definition built around them fails its cold start, not a request.
  if (takesBearerToken(operation.auth) && authenticate === undefined) {
    throw new Error(`${operation.name}: auth ${operation.auth} needs an authenticate`);
  }
  if (operation.auth === 'user-if-generic' && operation.bearerWhen === undefined) {
    throw new Error(`${operation.name}: auth user-if-generic needs bearerWhen`);
  }
  const core = async (event: ApiEvent): Promise<HttpResponse> => {
    const state = stateOf(event);
    const body = operation.body ? parseRequestPart(operation.body, event.body, 'body') : undefined;
    const query = operation.query
      ? parseRequestPart(operation.query, event.queryStringParameters ?? {}, 'query')
      : undefined;
    const params = operation.params
      ? parseRequestPart(operation.params, event.pathParameters ?? {}, 'path')
      : undefined;
    const request = {
      body,
      query,
      params,
      headers: state.headers,
      requestId: state.requestId,
      sourceIp: state.sourceIp,
      address: state.address,
      client: state.client,
      principal: state.principal as Principal,
      hit: state.hit,
    } as AuthenticatedRequest<Output<TBody>, Output<TQuery>, Output<TParams>>;
    // Before the route limits: an anonymous request that needs a token spends no one's budget.
    if (authenticate !== undefined && operation.bearerWhen?.(request)) {
      request.principal = await authenticate(state.headers.authorization);
    }
    for (const routeLimit of operation.limits ?? []) {
      if (routeLimit.countedByUseCase) {
        const key = digest(routeLimit.key(request));
        state.routeHit = new PendingHit(counter, routeLimit, key, systemClock.now());
        request.routeHit = state.routeHit;
      } else {
        await enforceRouteLimit(counter, routeLimit, request, state);
      }
    }
    const result = await run(request);
    const status = operation.successStatus ?? 200;
    if (result instanceof Document) {
      return {
        statusCode: status,
        headers: { 'content-type': 'application/json; charset=utf-8', ...result.headers },
        body: result.text,
      };
    }
    return result instanceof Page
      ? successResponse(status, result.items, result.meta)
      : successResponse(status, result);
  };

  const stack = middy<ApiEvent, HttpResponse>(core)
    .use(requestState())
    .use(rateLimit(counter, operation.countsOwnHit ?? false))
    .use(errorEnvelope(operation.inputFields))
    .use(servedOnItsHost(operation))
    .use(bodyLimit());
  // Credentials are checked before the body is read: an anonymous caller learns nothing more.
  if (authenticate !== undefined && operation.auth === 'user') {
    stack.use({
      before: async ({ event }) => {
        const state = stateOf(event);
        state.principal = await authenticate(state.headers.authorization);
      },
    });
  }
  if (operation.body) stack.use(httpJsonBodyParser());
  const handler = stack as unknown as (event: ApiEvent, context: Context) => Promise<HttpResponse>;
  return instrumented(
    (event, context) => {
      const requestId = event.requestContext?.requestId ?? 'local';
      // Read before the stack lower-cases the headers in place.
      const { origin } = lowerCaseHeaders(event.headers);
      return answerBeforeDeadline(
        context,
        handler(event, context),
        requestId,
        answerHeaders(requestId, origin),
      );
    },
    (event) => event.requestContext?.requestId ?? undefined,
  );
}
