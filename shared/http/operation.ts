import type * as v from 'valibot';
import type { ItemFamily } from '../adapters/keys.js';
import type { SecretName } from '../config.js';
import type { ErrorCode } from '../domain/errors.js';
import type { Principal } from '../domain/principal.js';
import type { FixedWindow, PendingHit } from '../domain/rate-limit.js';
import type { InputFields } from './responses.js';

/**
 * How an operation is declared: one definition per operation, in `<handler>.operation.ts` beside
 * its handler. The handler builds its stack from it (`apiHandler(definition, …)`), and the route
 * table (`routes.ts`) lists it for the stack, the local runtime and the OpenAPI document — so
 * what the document says, what the stack grants and what the handler accepts are one object.
 *
 * A definition is data: it imports schemas, limits and types, never an adapter or a handler, so
 * neither the stack nor the table pulls handler code, and a handler pulls only its own schemas.
 */

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** `ANY` only on the catch-all route, which answers what no operation serves. */
type RouteMethod = HttpMethod | 'ANY';

/**
 * - none: public (signature-authenticated receivers are `none` too);
 * - user: a Bearer access token whose session is live;
 * - user-if-generic: public for purpose `login`, a Bearer token for purpose `generic` (sendOtp,
 *   verifyOtp: a generic code confirms a number for the signed-in user);
 * - iam: SigV4 on AWS (other services of the platform); open in the local runtime.
 */
export type Auth = 'none' | 'user' | 'user-if-generic' | 'iam';

/** The routes that take a Bearer token, and so check its signature and its session. */
export const takesBearerToken = (auth: Auth): boolean =>
  auth === 'user' || auth === 'user-if-generic';

/**
 * What an operation's function uses. The stack grants exactly these, and sets the environment
 * they need, next to the function's declaration; the local runtime holds each handler to its
 * item families, as IAM does on AWS.
 */
export interface Needs {
  /**
   * The item families of the table it reads or writes (`itemFamilies` in shared/adapters/keys.ts),
   * besides those every route of its kind touches: an API route counts rate-limit hits
   * (`rateCounter`), a route that takes a Bearer token checks the caller's session (`user`).
   */
  items?: ItemFamily[];
  /**
   * Item families it reads and never writes (GetItem, BatchGetItem, Query only), besides the
   * published token keys every route that takes a Bearer token reads (`accessTokenKeys`).
   */
  reads?: ItemFamily[];
  /** Sends email through SES. */
  email?: boolean;
  /** Sends SMS through SNS (to phone numbers only). */
  sms?: boolean;
  /** Sends messages to the outbound delivery queue. */
  deliveryQueue?: boolean;
  /** Sends messages to the inbound-event processing queue. */
  inboundQueue?: boolean;
  /** Sends messages to the account-code queue (code work done off the request path). */
  accountCodeQueue?: boolean;
  /** Reads the SMS country allow-list without sending SMS (checks a number before queueing). */
  smsAllowList?: boolean;
  /**
   * Checks passkeys: the relying party's id and origins (WEBAUTHN_ORIGINS, WEBAUTHN_RP_ID, else
   * the dashboard's address).
   */
  passkeys?: boolean;
  /** Creates and deletes one-time schedules in the delivery schedule group. */
  scheduler?: boolean;
  /**
   * Secrets it reads (each re-read once a minute: shared/adapters/secrets.ts), besides the one a
   * receiver's `secret` names (the route table adds it). JWT_SIGNING_KEYS only where tokens are
   * issued: a route that checks a Bearer token reads the published public keys instead.
   */
  secrets?: SecretName[];
}

type Tag = 'auth' | 'passkeys' | 'profile' | 'otp' | 'webhooks' | 'events' | 'receivers' | 'meta';

/**
 * The two public hosts (docs/deployment.md, "Custom domains"): `accounts` is {base_url}'s (accounts,
 * sessions, profile, OTPs, receivers), `api` is {api_base_url}'s (webhook registration and
 * events).
 */
export type Host = 'accounts' | 'api';

const hostOfTag: Record<Tag, Host | undefined> = {
  auth: 'accounts',
  passkeys: 'accounts',
  profile: 'accounts',
  otp: 'accounts',
  receivers: 'accounts',
  webhooks: 'api',
  events: 'api',
  // The public documents (JWKS, OpenAPI) and the catch-all: on both.
  meta: undefined,
};

/** The host an operation is served on, by its tag; undefined for one served on both. */
export const hostOf = (operation: { tag: Tag }): Host | undefined => hostOfTag[operation.tag];

type Schema = v.GenericSchema;
export type Output<TSchema> = TSchema extends Schema ? v.InferOutput<TSchema> : undefined;

export interface ApiRequest<TBody, TQuery, TParams> {
  body: TBody;
  query: TQuery;
  params: TParams;
  /** Header names are lower-cased. */
  headers: Record<string, string>;
  requestId: string;
  /**
   * The caller's source, as every per-address limit counts it (the per-client window, the login
   * throttle, per-source counts): the caller's address — the connection's, or the dashboard
   * viewer's (`callerAddress`) — an IPv6 one by its /64 (`countingSource` in caller-address.ts).
   */
  sourceIp: string;
  /**
   * The caller's address in full, for what is shown and recorded (a session's `ip_address`);
   * never a counting key: an IPv6 caller can take a fresh one from its /64 for every request.
   */
  address: string;
  /**
   * Who the per-client rate limit counts: the API key API Gateway accepted (its id) with the
   * caller's address, or the address alone (`clientOf` in api-handler.ts).
   */
  client: string;
  /** The caller, when the operation asked for a Bearer token for this request (`bearerWhen`). */
  principal?: Principal;
  /**
   * The request's hit on its client's window, not counted yet, for an operation that counts it
   * in its own write (`countsOwnHit`); whatever it leaves uncounted is counted after it.
   */
  hit?: PendingHit;
  /** The hit on the route limit the use-case counts itself (`countedByUseCase`), if any. */
  routeHit?: PendingHit;
}

export interface AuthenticatedRequest<TBody, TQuery, TParams>
  extends ApiRequest<TBody, TQuery, TParams> {
  principal: Principal;
}

/**
 * A tighter fixed window of one route, on top of the per-client limit: counted after validation,
 * so it can key on the request (the phone number a code goes to, or `request.client`).
 */
export interface RouteLimit<TRequest> extends FixedWindow {
  /** What one counter counts, as the OpenAPI document states it: each target, or each client. */
  per: 'target' | 'client';
  /** What one counter counts; stored only as a digest (it may be an email or a phone). */
  key(request: TRequest): string;
  /**
   * The use-case counts the hit in a write it makes anyway (`request.routeHit`): the OTP
   * verifications, in their attempt's reservation. Counted here alone on any path it did not.
   * @default false
   */
  countedByUseCase?: boolean;
}

interface HttpOperation {
  /** The operation id (the names the OpenAPI document publishes). */
  name: string;
  method: RouteMethod;
  /** Path below /v1, with {param} placeholders (`{proxy+}`: any rest of the path). */
  path: string;
  /** The Lambda entry module, relative to the project root: the handler beside this definition. */
  entry: string;
  auth: Auth;
  /** A short name for the operation (the reference's menu): a verb and its object, no clause. */
  title: string;
  /** What it does, in a sentence: the reference's first line under the title. */
  summary: string;
  tag: Tag;
  needs: Needs;
  /** Set by the route table from the definition module's `answer`; a definition never sets it. */
  answer?: Answer;
}

/**
 * What an HTTP operation answers: the `data` of its success envelope and the error codes it can
 * answer besides those every operation of its kind can (`errorsOf` in answers.ts). Each
 * definition module exports its operation's as `answer`, beside `operation`; only the route
 * table reads it, for the OpenAPI document (which the contract test holds every end-to-end
 * answer to). A handler imports `operation` alone, and esbuild drops the unused `answer` and
 * the response schemas it names (they are marked pure), so no handler bundle carries them.
 */
export interface Answer {
  /**
   * The success envelope's `data`; for a list, one item (the answer is a page of them); for a
   * `json` document, the document itself.
   */
  data?: v.GenericSchema;
  /** A page of `data` items, with `meta` (page, per_page, total). */
  paged?: true;
  /** Not an envelope: the document itself (`json`) or a plain-text handshake (`text`). */
  document?: 'json' | 'text';
  /**
   * Checks a one-time code: it can answer what a code check refuses (`codeCheckErrors`), before
   * its own `errors`.
   */
  checksCode?: true;
  /** Codes beyond those that follow from the route's surface, auth and inputs. */
  errors?: ErrorCode[];
  /** Why else the operation answers 429, beyond its own limits: sentences for its reference. */
  tooManyRequests?: string[];
  /** A public operation that also reads a Bearer token when one is sent (logout). */
  optionalBearer?: true;
  /** Reads an optional Idempotency-Key header: a repeat answers the first request's result. */
  idempotencyKey?: true;
  /**
   * A receiver's signature scheme (components.securitySchemes); the document lists the header
   * each sender's own brand uses (`X-Razorpay-Signature`, `Stripe-Signature`) as the alternative.
   */
  signedWith?: 'gatewayASignature' | 'gatewayBSignature' | 'messagingSignature';
  /** What a receiver's caller sends: a receiver has no request schema of its own. */
  receives?: ReceiverRequest;
}

/**
 * A receiver's request as its sender makes it, for the document. A receiver reads the exact
 * bytes its sender signed rather than a parsed body, so nothing here is validated by a schema:
 * these state what the receiver requires (shared/domain/inbound/sources.ts) and reads.
 */
export interface ReceiverRequest {
  /** The JSON event posted as the body (its bytes are what the signature covers). */
  body?: v.GenericSchema;
  /** Query parameters: the messaging handshake's `hub.*`. */
  query?: v.GenericSchema;
  /** Headers read besides the signature's, each with what it carries. */
  headers?: Record<string, string>;
}

/** Behind API Gateway (stage v1), with the usage plans and the per-client rate limit. */
export interface ApiOperation<
  TBody extends Schema | undefined = Schema | undefined,
  TQuery extends Schema | undefined = Schema | undefined,
  TParams extends Schema | undefined = Schema | undefined,
  TAuth extends Auth = Auth,
> extends HttpOperation {
  surface: 'api';
  auth: TAuth;
  /** Status of a success response. @default 200 */
  successStatus?: 200 | 201 | 202;
  body?: TBody;
  query?: TQuery;
  params?: TParams;
  /** Route-specific limits; a refusal is a 429 with the headers of the limit that refused. */
  limits?: RouteLimit<ApiRequest<Output<TBody>, Output<TQuery>, Output<TParams>>>[];
  /**
   * The use-case counts the request's per-client hit itself, inside a write it makes anyway
   * (`request.hit`): one round trip less. The hit is then counted after validation and the
   * use-case's reads — a request over the limit still gets its 429 and writes nothing — and the
   * HTTP layer counts it alone on every path that did not. @default false
   */
  countsOwnHit?: boolean;
  /**
   * The request field of each input an adapter can refuse (`Refusal`): a number SNS will not text
   * is `phone_number` on sendOtp. The refusal's detail names it.
   */
  inputFields?: InputFields;
  /**
   * For `auth: 'user-if-generic'`: which requests need a Bearer token. After validation, before
   * the route limits, such a request is authenticated as a `user` route's is.
   */
  bearerWhen?(request: ApiRequest<Output<TBody>, Output<TQuery>, Output<TParams>>): boolean;
}

/**
 * On a Lambda Function URL: the inbound webhook receivers, which authenticate by signature.
 * Routes that share an entry share one function (and one URL): the messaging platform calls a
 * single callback URL with GET for the handshake and POST for notifications.
 */
export interface ReceiverOperation extends HttpOperation {
  surface: 'function-url';
  method: HttpMethod;
  /**
   * The secret its calls are checked with — a gateway's signing secret, the messaging platform's
   * app secret (notifications) or verify token (handshake). The handler reads it from here, and
   * the route table adds it to `needs.secrets`: written once.
   */
  secret: SecretName;
  /** A receiver reads the raw bytes its sender signed: no request schema, and a 200 on success. */
  body?: never;
  query?: never;
  successStatus?: never;
}

/** Not on HTTP: invoked by SQS or by a schedule. */
export interface BackgroundOperation {
  name: string;
  entry: string;
  surface: 'queue' | 'schedule';
  /** For surface queue: which queue feeds it. */
  queue?: 'delivery' | 'inbound' | 'accountCode';
  summary: string;
  needs: Needs;
}

export const apiOperation = <
  TBody extends Schema | undefined = undefined,
  TQuery extends Schema | undefined = undefined,
  TParams extends Schema | undefined = undefined,
  TAuth extends Auth = Auth,
>(
  definition: Omit<ApiOperation<TBody, TQuery, TParams, TAuth>, 'surface'>,
): ApiOperation<TBody, TQuery, TParams, TAuth> => ({ ...definition, surface: 'api' });

export const receiverOperation = (
  definition: Omit<ReceiverOperation, 'surface' | 'auth' | 'tag'>,
): ReceiverOperation => ({
  ...definition,
  auth: 'none',
  tag: 'receivers',
  surface: 'function-url',
});

export const backgroundOperation = (definition: BackgroundOperation): BackgroundOperation =>
  definition;
