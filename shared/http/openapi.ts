import { type OverrideRefContext, toJsonSchema, toJsonSchemaDefs } from '@valibot/to-json-schema';
import type * as v from 'valibot';
import type { ErrorCode } from '../domain/errors.js';
import { maxChallengeLength } from '../domain/inbound/receive-event.js';
import type { FixedWindow } from '../domain/rate-limit.js';
import { deliverableEventDefinitions } from '../domain/webhooks/event-catalogue.js';
import { answerOf, errorsOf } from './answers.js';
import { eventTypeDocument } from './event-types.js';
import { firewallRetryAfterSeconds, gatewayAnswers } from './gateway-answers.js';
import { serversOf } from './openapi-servers.js';
import { type Answer, type Host, hostOf } from './operation.js';
import { maxReceiverBodyBytes } from './receiver-handler.js';
import { statusOfCode } from './responses.js';
import type { DocumentedRoute, HttpRouteEntry } from './route-table.js';
import { page, perPage } from './schemas/fields.js';
import * as responseSchemas from './schemas/responses.js';
import { idempotencyKeyPattern } from './schemas/webhooks.js';

type JsonObject = Record<string, unknown>;

/**
 * page and per_page arrive as query strings of digits (which is how their schemas read them);
 * the document states them as the integers a client writes, with the bounds those digits allow.
 */
const queryIntegers = new Map<unknown, JsonObject>([
  [page, { type: 'integer', minimum: 1, maximum: 999_999, default: 1 }],
  [perPage, { type: 'integer', minimum: 1, maximum: 100, default: 20 }],
]);

/** JSON Schema of a request part as the client sends it (typeMode input: before transforms). */
const jsonSchema = (schema: v.GenericSchema): JsonObject =>
  toJsonSchema(schema, {
    target: 'draft-2020-12',
    typeMode: 'input',
    errorMode: 'ignore',
  }) as JsonObject;

/** Named response schemas live in components.schemas, referenced by name. */
const componentRef = ({ referenceId }: OverrideRefContext) => `#/components/schemas/${referenceId}`;

/**
 * The JSON Schema of each response schema, converted once: a conversion with `definitions`
 * converts every named response schema again, and most operations share their answers' schemas,
 * which made the document's build (every cold start of its function) several times slower.
 */
const convertedResponses = new Map<v.GenericSchema, JsonObject>();

/** A response's JSON Schema, its named parts referenced (their definitions are components). */
function responseJsonSchema(schema: v.GenericSchema): JsonObject {
  let converted = convertedResponses.get(schema);
  if (converted === undefined) {
    converted = convertResponse(schema);
    convertedResponses.set(schema, converted);
  }
  return converted;
}

function convertResponse(schema: v.GenericSchema): JsonObject {
  const {
    $schema: _,
    $defs: __,
    ...inline
  } = toJsonSchema(schema, {
    target: 'draft-2020-12',
    typeMode: 'output',
    errorMode: 'ignore',
    definitions: responseSchemas,
    overrideRef: componentRef,
  }) as JsonObject;
  return inline;
}

const namedResponses: Record<string, unknown> = toJsonSchemaDefs(responseSchemas, {
  target: 'draft-2020-12',
  typeMode: 'output',
  errorMode: 'ignore',
  overrideRef: componentRef,
});

const errorCodes = Object.keys(statusOfCode);

const gatewayASignatureRule = 'Hex HMAC-SHA256 of the raw body with the shared secret.';
const gatewayBSignatureRule =
  '`t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body">`; five minutes of tolerance.';

/**
 * The security of a receiver: its signature header, or the header its sender's own brand uses
 * (either is read, so either satisfies it).
 */
const signatureAlternatives: Record<NonNullable<Answer['signedWith']>, string[]> = {
  gatewayASignature: ['gatewayASignature', 'razorpaySignature'],
  gatewayBSignature: ['gatewayBSignature', 'stripeSignature'],
  messagingSignature: ['messagingSignature'],
};

const components = {
  securitySchemes: {
    bearerAuth: {
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'JWT',
      description:
        'An access token from login, verify-signup-otp, refresh-token or a login OTP: an EdDSA JWT (RFC8725 practices: one algorithm, issuer and audience checked, 15-minute expiry, keys at /.well-known/jwks.json), refused once its session is revoked.',
    },
    apiKey: {
      type: 'apiKey',
      in: 'header',
      name: 'x-api-key',
      description:
        "The client app's key in its stage's usage plan: required by the deployed stack, not by the local runtime.",
    },
    gatewayASignature: {
      type: 'apiKey',
      in: 'header',
      name: 'X-Gateway-A-Signature',
      description: gatewayASignatureRule,
    },
    razorpaySignature: {
      type: 'apiKey',
      in: 'header',
      name: 'X-Razorpay-Signature',
      description: `The gateway's own name for X-Gateway-A-Signature: ${gatewayASignatureRule}`,
    },
    gatewayBSignature: {
      type: 'apiKey',
      in: 'header',
      name: 'Gateway-B-Signature',
      description: gatewayBSignatureRule,
    },
    stripeSignature: {
      type: 'apiKey',
      in: 'header',
      name: 'Stripe-Signature',
      description: `The gateway's own name for Gateway-B-Signature: ${gatewayBSignatureRule}`,
    },
    messagingSignature: {
      type: 'apiKey',
      in: 'header',
      name: 'X-Hub-Signature-256',
      description: '`sha256=<hex HMAC-SHA256 of the raw body>` with the app secret.',
    },
    webhookSignature: {
      type: 'apiKey',
      in: 'header',
      name: 'webhook-signature',
      description:
        "How receivers authenticate our deliveries: Standard Webhooks signatures with the endpoint's secret (docs/webhooks.md).",
    },
    awsSigV4: {
      type: 'apiKey',
      in: 'header',
      name: 'Authorization',
      description: 'AWS Signature Version 4 (IAM). Open in the local runtime.',
    },
  },
  schemas: {
    ...namedResponses,
    PageMeta: {
      type: 'object',
      required: ['page', 'per_page', 'total', 'next_cursor'],
      additionalProperties: false,
      properties: {
        page: { type: 'integer', format: 'int32', minimum: 1, maximum: 1_000_000_000 },
        per_page: { type: 'integer', format: 'int32', minimum: 1, maximum: 100 },
        total: {
          type: 'integer',
          format: 'int32',
          minimum: 0,
          maximum: 1_000_000_000,
          description:
            'Exact on the last page; before it, a lower bound: the items up to this page’s end plus one.',
        },
        next_cursor: {
          type: ['string', 'null'],
          maxLength: 1024,
          description:
            'Pass as `cursor` to read the next page (its cost does not grow with the page’s depth); null on the last page.',
        },
      },
    },
    ErrorEnvelope: {
      type: 'object',
      required: ['success', 'error'],
      additionalProperties: false,
      properties: {
        success: { const: false },
        error: {
          type: 'object',
          required: ['code', 'message', 'details'],
          additionalProperties: false,
          properties: {
            code: { type: 'string', enum: errorCodes },
            message: { type: 'string', maxLength: 2000 },
            details: {
              type: 'array',
              maxItems: 100,
              items: {
                type: 'object',
                required: ['field', 'message'],
                additionalProperties: false,
                properties: {
                  field: { type: 'string', maxLength: 200 },
                  message: { type: 'string', maxLength: 500 },
                },
              },
            },
          },
        },
      },
    },
  },
  headers: {
    'X-Request-Id': {
      required: true,
      schema: { type: 'string', maxLength: 128 },
      description: 'Identifies this request in the service logs; quote it when asking for help',
    },
    'X-RateLimit-Limit': {
      required: true,
      schema: { type: 'integer', format: 'int32', minimum: 0, maximum: 1_000_000 },
      description: 'Requests allowed in the window',
    },
    'X-RateLimit-Remaining': {
      required: true,
      schema: { type: 'integer', format: 'int32', minimum: 0, maximum: 1_000_000 },
      description: 'Requests left in the window',
    },
    'X-RateLimit-Reset': {
      required: true,
      schema: { type: 'integer', format: 'int64', minimum: 0, maximum: 99_999_999_999 },
      description: 'Unix time (s) at which the window ends',
    },
    'Access-Control-Allow-Origin': {
      schema: { type: 'string', maxLength: 2048 },
      description:
        'Present when the request came from an origin listed in CORS_ALLOWED_ORIGINS: that origin.',
    },
  },
};

const errorMeaning: Record<number, string> = {
  400: 'Invalid request',
  401: 'Not authenticated',
  403: 'Forbidden',
  404: 'Not found',
  409: 'Conflict',
  413: 'Body too large',
  429: 'Too many requests',
  500: 'Unexpected error; the body carries no internals',
};

const retryAfter = {
  required: true,
  schema: { type: 'integer', format: 'int32', minimum: 0, maximum: 86_400 },
  description: 'Seconds to wait before trying again',
};

/** The success answer's body: the operation's `data` in the envelope, or the document itself. */
function successContent(answer: Answer): JsonObject {
  if (answer.document === 'text') {
    return { 'text/plain': { schema: { type: 'string', maxLength: maxChallengeLength } } };
  }
  if (answer.data === undefined) return { 'application/json': { schema: { type: 'object' } } };
  const data = responseJsonSchema(answer.data);
  if (answer.document === 'json') return { 'application/json': { schema: data } };
  return {
    'application/json': {
      schema: {
        type: 'object',
        required: answer.paged ? ['success', 'data', 'meta'] : ['success', 'data'],
        additionalProperties: false,
        properties: {
          success: { const: true },
          data: answer.paged ? { type: 'array', maxItems: 100, items: data } : data,
          ...(answer.paged ? { meta: { $ref: '#/components/schemas/PageMeta' } } : {}),
        },
      },
    },
  };
}

/**
 * Which host serves an operation (docs/deployment.md, "Custom domains"), as its 404 states: with
 * the custom domains configured, the other host answers 404 for it.
 */
const servedHost: Record<Host, string> = {
  accounts:
    "Served on {base_url}'s host (accounts, sessions, profile, one-time codes): through {api_base_url}'s custom domain this operation answers 404 `not_found`",
  api: "Served on {api_base_url}'s host (webhook registration and events): through {base_url}'s custom domain this operation answers 404 `not_found`",
};

const gatewayRetryAfter = (type: string) =>
  gatewayAnswers.find((answer) => answer.type === type)?.retryAfterSeconds;

/**
 * What API Gateway answers itself on every API operation, before the service runs
 * (shared/http/gateway-answers.ts): sentences for the reference of each status.
 */
const gatewayAnswered: Record<number, string[]> = {
  403: [
    "Answered by API Gateway itself, before the service: no x-api-key header, or one that is no key of this stage, or a request the stage's web ACL blocked (AWS's managed rules). In the envelope with X-Request-Id (the gateway's request id); it counts in no window, so it carries no X-RateLimit-*",
  ],
  429: [
    `API Gateway also answers 429 \`rate_limited\` itself, before the service, in the envelope with X-Request-Id and a fixed Retry-After but no X-RateLimit-* (it reports no window): the usage plan of the API key — its requests a second (Retry-After ${gatewayRetryAfter('THROTTLED')}) or its daily quota, which starts again at 00:00 UTC (Retry-After ${gatewayRetryAfter('QUOTA_EXCEEDED')}) — and the web ACL's count of the caller's address over five minutes (Retry-After ${firewallRetryAfterSeconds})`,
  ],
};

/**
 * The X-RateLimit-* headers of a status API Gateway answers too (`gatewayAnswered`): absent on
 * the gateway's own answers.
 */
const rateLimitHeadersUnlessGateway = Object.fromEntries(
  (['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'] as const).map((name) => [
    name,
    {
      ...components.headers[name],
      required: false,
      description: `${components.headers[name].description}; absent on API Gateway's own answers`,
    },
  ]),
);

/** A limit of the operation's own (`limits` of its definition). */
type OwnLimit = FixedWindow & { per: 'target' | 'client' };

/** An operation's own limit, as its description states it. */
function limitSentence({ limit, windowSeconds, per }: OwnLimit): string {
  const window = windowSeconds === 60 ? 'a minute' : `per ${windowSeconds} s`;
  const counted = per === 'target' ? 'per email or phone number the request names' : 'per client';
  return `Own limit: ${limit} requests ${window} ${counted}, on top of each client's limit for all operations; over it, 429 \`rate_limited\` with Retry-After and the X-RateLimit-* headers of this limit.`;
}

/**
 * What a code check's 429 means: the attempts are the caller's own (per source), under the
 * target's ceiling of the day (docs/otp.md, "Budgets per source").
 */
const codeCheckLimits =
  '`too_many_attempts`: this caller (its address) spent its 5 attempts at the code, or its 10 wrong codes of the UTC day for this email or phone, or the email or phone had 50 wrong codes today from all callers; Retry-After says when it ends. Other callers, the code’s owner among them, keep their own attempts.';

/** The 429 sentences of an operation's reference. */
const tooManyRequests = (answer: Answer): string[] => [
  ...(answer.checksCode ? [codeCheckLimits] : []),
  ...(answer.tooManyRequests ?? []),
];

const anyIdentifier = { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' };

/** The longest header value a receiver's documented headers state (what a header block holds). */
const maxHeaderValueLength = 8192;

const signedBodyDescription = `The event exactly as its sender signed it: the signature covers these raw bytes, and they are verified as received, so send them unmodified (no re-serialising: the same whitespace, key order and escapes). At most ${maxReceiverBodyBytes} bytes. Senders declare application/json; the bytes are read the same under any media type. The schema states what the receiver reads; every other field is the sender's own and is kept as sent.`;

/**
 * Why a receiver's answers carry no X-RateLimit-* headers, and the one limit its sender can meet:
 * every receiver's description, and its 429.
 */
const receiverLimitsSentence =
  "No per-client window counts a receiver's calls, so its answers carry no X-RateLimit-* headers: its senders are the gateways and the messaging platform, authenticated by their signatures (the handshake by its verify token), and a window would refuse real events in a burst. The one limit a sender can meet is the receiver's reserved concurrency (a setting of the stack, 10 by default), at which Lambda refuses the call itself (the 429 below).";

const receiverThrottled =
  "Throttled: more calls at once than the receiver's reserved concurrency. Lambda's Function URL answers this itself, not in the error envelope and without X-RateLimit-* or Retry-After; senders retry on their own schedule.";

function operation(route: HttpRouteEntry): JsonObject {
  const parameters: JsonObject[] = [];
  // The schema the handler validates its path with (`params` of its definition), else any id.
  const pathFields = (
    route.surface === 'api' && route.params ? (jsonSchema(route.params).properties ?? {}) : {}
  ) as Record<string, JsonObject>;
  for (const match of route.path.matchAll(/\{(\w+)\}/g)) {
    parameters.push({
      name: match[1],
      in: 'path',
      required: true,
      // No id we issue is longer than 64 (the bound a pattern alone does not state).
      schema: { maxLength: 64, ...(pathFields[match[1]!] ?? anyIdentifier) },
    });
  }
  const answer = answerOf(route);
  // A receiver's request is stated by its answer (it validates no schema: it reads raw bytes).
  const receives = route.surface === 'function-url' ? (answer.receives ?? {}) : undefined;
  const query = receives === undefined ? route.query : receives.query;
  if (query) {
    const schema = jsonSchema(query);
    const properties = (schema.properties ?? {}) as Record<string, JsonObject>;
    const required = new Set((schema.required ?? []) as string[]);
    // A query schema is an object schema: its entries are the fields' own schemas.
    const fields = ('entries' in query ? query.entries : {}) as Record<string, unknown>;
    for (const [name, property] of Object.entries(properties)) {
      const schema = queryIntegers.get(fields[name]) ?? property;
      parameters.push({ name, in: 'query', required: required.has(name), schema });
    }
  }
  for (const [name, description] of Object.entries(receives?.headers ?? {})) {
    parameters.push({
      name,
      in: 'header',
      required: false,
      description,
      schema: { type: 'string', maxLength: maxHeaderValueLength },
    });
  }
  if (answer.idempotencyKey) {
    parameters.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description:
        'Makes a retry safe: the same key within 24 hours answers the first request’s result (409 `conflict` with another body).',
      schema: { type: 'string', maxLength: 255, pattern: idempotencyKeyPattern.source },
    });
  }
  const headers = {
    'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' },
    ...(route.surface === 'api'
      ? {
          'X-RateLimit-Limit': { $ref: '#/components/headers/X-RateLimit-Limit' },
          'X-RateLimit-Remaining': { $ref: '#/components/headers/X-RateLimit-Remaining' },
          'X-RateLimit-Reset': { $ref: '#/components/headers/X-RateLimit-Reset' },
          'Access-Control-Allow-Origin': {
            $ref: '#/components/headers/Access-Control-Allow-Origin',
          },
        }
      : {}),
  };
  const responses: JsonObject = {
    [String(route.successStatus ?? 200)]: {
      description: 'Success',
      headers,
      content: successContent(answer),
    },
  };
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of errorsOf(route)) {
    byStatus.set(statusOfCode[code], [...(byStatus.get(statusOfCode[code]) ?? []), code]);
  }
  const onApi = route.surface === 'api';
  if (onApi) {
    // API Gateway's own refusals of a key or a blocked request, before the service runs.
    byStatus.set(403, [...new Set([...(byStatus.get(403) ?? []), 'forbidden' as const])]);
  }
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    const why = [
      ...(status === 404 && onApi && hostOf(route) !== undefined
        ? [servedHost[hostOf(route)!]]
        : []),
      ...(status === 429 ? tooManyRequests(answer) : []),
      ...(onApi ? (gatewayAnswered[status] ?? []) : []),
    ];
    responses[String(status)] = {
      description: [`${errorMeaning[status] ?? 'Refused'}: ${codes.join(', ')}`, ...why].join('. '),
      headers: {
        ...headers,
        ...(onApi && status in gatewayAnswered ? rateLimitHeadersUnlessGateway : {}),
        ...(status === 429 ? { 'Retry-After': retryAfter } : {}),
      },
      content: {
        'application/json': {
          schema: {
            allOf: [
              { $ref: '#/components/schemas/ErrorEnvelope' },
              { properties: { error: { properties: { code: { enum: codes } } } } },
            ],
          },
        },
      },
    };
  }
  // Not the service's answer: Lambda's own, at the receiver's reserved concurrency.
  if (route.surface === 'function-url') responses['429'] = { description: receiverThrottled };
  const security =
    route.auth === 'iam'
      ? [{ awsSigV4: [] }]
      : route.surface === 'function-url'
        ? answer.signedWith === undefined
          ? []
          : signatureAlternatives[answer.signedWith].map((scheme) => ({ [scheme]: [] }))
        : route.auth === 'user'
          ? [{ apiKey: [], bearerAuth: [] }]
          : // Alternatives: with the key alone, or with a Bearer token too (its summary says when).
            answer.optionalBearer || route.auth === 'user-if-generic'
            ? [{ apiKey: [] }, { apiKey: [], bearerAuth: [] }]
            : [{ apiKey: [] }];
  // The limits the handler applies: its definition's, the very objects this document reads.
  const limits: OwnLimit[] = route.surface === 'api' ? (route.limits ?? []) : [];
  const limitsText =
    receives === undefined ? limits.map(limitSentence).join(' ') : receiverLimitsSentence;
  const description = [`${route.summary}.`, limitsText].filter((part) => part !== '').join('\n\n');
  return {
    operationId: route.name,
    summary: route.title,
    description,
    tags: [route.tag],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(route.body
      ? {
          requestBody: {
            required: true,
            content: { 'application/json': { schema: jsonSchema(route.body) } },
          },
        }
      : {}),
    ...(receives?.body
      ? {
          requestBody: {
            required: true,
            description: signedBodyDescription,
            content: {
              'application/json': { schema: jsonSchema(receives.body) },
              // The bytes are read whatever type the sender declares (a Function URL hands
              // non-text types over base64-encoded, and the receiver decodes them first).
              '*/*': { schema: { description: 'The same JSON event, under another media type' } },
            },
          },
        }
      : {}),
    responses,
    security,
    ...(limits.length > 0
      ? {
          'x-rate-limits': limits.map(({ scope, limit, windowSeconds, per }) => ({
            scope,
            limit,
            window_seconds: windowSeconds,
            per,
          })),
        }
      : {}),
    'x-surface': route.surface,
  };
}

const tags = [
  { name: 'auth', description: 'Sign-up, sign-in, sessions, passwords and second factors' },
  {
    name: 'passkeys',
    description: 'Passkeys (WebAuthn): added by a signed-in user, signing in without a password',
  },
  { name: 'profile', description: "The signed-in user's own account" },
  { name: 'otp', description: 'One-time codes by email and SMS' },
  { name: 'webhooks', description: 'Endpoints that receive signed events, and their deliveries' },
  { name: 'events', description: 'The event catalogue, and publication by platform services' },
  {
    name: 'receivers',
    description: 'Webhooks that payment gateways and the messaging platform send',
  },
  { name: 'meta', description: 'Keys and this document' },
];

/** What every delivery carries besides the body (docs/webhooks.md, "For receiver authors"). */
const deliveryHeaders: JsonObject[] = [
  {
    name: 'X-Service-Signature',
    maxLength: 64,
    description:
      'Lower-case hex HMAC-SHA256 of the raw body, keyed with the newest signing secret (the whole `whsec_…` string). Compare in constant time.',
  },
  {
    name: 'webhook-id',
    maxLength: 64,
    description: 'The event id (Standard Webhooks); deduplicate on it.',
  },
  {
    name: 'webhook-timestamp',
    maxLength: 12,
    description: 'Unix seconds of this attempt (Standard Webhooks).',
  },
  {
    name: 'webhook-signature',
    maxLength: 200,
    description:
      'Space-separated `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, one per live secret (two for 24 hours after a rotation), keyed with the base64-decoded part of the secret after `whsec_` (Standard Webhooks).',
  },
].map(({ maxLength, ...header }) => ({
  ...header,
  in: 'header',
  required: true,
  schema: { type: 'string', maxLength },
}));

/**
 * The outbound events as OpenAPI 3.1 `webhooks`: the request each receiver gets, one entry per
 * type, generated from the event catalogue that publication validates against.
 */
function webhooksSection(): JsonObject {
  return Object.fromEntries(
    deliverableEventDefinitions.map((definition) => {
      const { type, description, schema, example } = eventTypeDocument(definition);
      return [
        type,
        {
          post: {
            operationId: `receive_${type.replace('.', '_')}`,
            summary: type,
            description,
            tags: ['webhooks'],
            parameters: deliveryHeaders,
            security: [{ webhookSignature: [] }],
            requestBody: {
              required: true,
              content: { 'application/json': { schema, example } },
            },
            responses: {
              '2XX': {
                description:
                  'Received: answer within 10 seconds, before processing. Anything else (another status, a redirect, a timeout) is a failed attempt, retried after 5 min, 30 min, 2 h and 24 h.',
              },
            },
          },
        },
      ];
    }),
  );
}

const int32 = { min: -(2 ** 31), max: 2 ** 31 - 1 };

/**
 * Names each integer's format from its bounds (int32 when they fit, else int64): valibot's JSON
 * Schema has `type: integer` and the bounds, and generated clients pick their number type by it.
 */
function withIntegerFormats(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withIntegerFormats);
  if (node === null || typeof node !== 'object') return node;
  const entries = Object.entries(node).map(([key, value]) => [key, withIntegerFormats(value)]);
  const schema = Object.fromEntries(entries) as JsonObject;
  if (schema.type === 'integer' && schema.format === undefined) {
    const fits =
      typeof schema.minimum === 'number' &&
      typeof schema.maximum === 'number' &&
      schema.minimum >= int32.min &&
      schema.maximum <= int32.max;
    schema.format = fits ? 'int32' : 'int64';
  }
  return schema;
}

/**
 * The OpenAPI 3.1 document of the service, generated from the route table's operations
 * (`functions/routes.ts`): its request schemas,
 * success statuses and own limits are the operations' definitions, the very objects each handler
 * validates and counts with (so it cannot drift from what the handlers accept). Receivers live on Function URLs
 * on AWS; their paths are those the local runtime serves.
 */
export function openApiDocument(
  operations: readonly DocumentedRoute[],
  serverUrls: readonly string[],
): JsonObject {
  const paths: Record<string, JsonObject> = {};
  for (const route of operations) {
    paths[route.path] ??= {};
    paths[route.path]![route.method.toLowerCase()] = operation(route);
  }
  return withIntegerFormats({
    openapi: '3.1.0',
    info: {
      title: 'Account, OTP and webhook service',
      version: '1.0.0',
      description:
        'Sign-up with email OTP, JWT sessions with rotating refresh tokens, SMS OTP, password reset, inbound gateway webhooks and signed outbound webhooks.\n\n' +
        'Envelopes: a success answers `{"success": true, "data": …}` (lists add `meta`: page, per_page, total); a refusal answers `{"success": false, "error": {"code", "message", "details"}}`, `details` naming each bad field in a sentence. Clients branch on `code`, which is never renamed; each operation lists the statuses it answers.\n\n' +
        'Rate-limit headers: every answer of an API operation carries X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Reset of the window that counted it (a 429 also Retry-After), whatever its status. Two kinds of answer count in no window, and so carry none: CORS preflights (OPTIONS on an API path), which the API gateway answers itself without calling the service — a preflight is never counted, so a refused one has no window to report and costs the caller nothing of its limit —, and the receivers’ answers (tag receivers: their descriptions say why).\n\n' +
        'Two hosts: where the deployment has its custom domains, {base_url}’s host serves the operations tagged auth, profile and otp, and {api_base_url}’s those tagged webhooks and events; the public documents (tag meta) are on both, and the other host answers 404 `not_found` for an operation. The deployment’s own stage address serves every operation. The receivers (tag receivers) have addresses of their own on AWS.',
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
      contact: { name: 'The operators of this deployment' },
    },
    servers: serversOf(serverUrls),
    tags,
    paths,
    webhooks: webhooksSection(),
    components,
  }) as JsonObject;
}
