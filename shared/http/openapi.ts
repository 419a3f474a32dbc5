import { type OverrideRefContext, toJsonSchema, toJsonSchemaDefs } from '@valibot/to-json-schema';
import type * as v from 'valibot';
import type { ErrorCode } from '../domain/errors.js';
import { deliverableEventDefinitions } from '../domain/webhooks/event-catalogue.js';
import { type Answer, answerOf, errorsOf } from './answers.js';
import { eventTypeDocument } from './event-types.js';
import { statusOfCode } from './responses.js';
import { type HttpRouteEntry, operations } from './routes.js';
import * as responseSchemas from './schemas/responses.js';

type JsonObject = Record<string, unknown>;

/** JSON Schema of a request part as the client sends it (typeMode input: before transforms). */
const jsonSchema = (schema: v.GenericSchema): JsonObject =>
  toJsonSchema(schema, {
    target: 'draft-2020-12',
    typeMode: 'input',
    errorMode: 'ignore',
  }) as JsonObject;

/** Named response schemas live in components.schemas, referenced by name. */
const componentRef = ({ referenceId }: OverrideRefContext) => `#/components/schemas/${referenceId}`;

/** A response's JSON Schema, its named parts referenced (their definitions are components). */
function responseJsonSchema(schema: v.GenericSchema): JsonObject {
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

const components = {
  securitySchemes: {
    bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
    apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' },
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
      required: ['page', 'per_page', 'total'],
      additionalProperties: false,
      properties: {
        page: { type: 'integer', minimum: 1 },
        per_page: { type: 'integer', minimum: 1, maximum: 100 },
        total: { type: 'integer', minimum: 0 },
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
            message: { type: 'string' },
            details: {
              type: 'array',
              items: {
                type: 'object',
                required: ['field', 'message'],
                additionalProperties: false,
                properties: { field: { type: 'string' }, message: { type: 'string' } },
              },
            },
          },
        },
      },
    },
  },
  headers: {
    'X-Request-Id': {
      schema: { type: 'string' },
      description: 'Identifies this request in the service logs; quote it when asking for help',
    },
    'X-RateLimit-Limit': {
      schema: { type: 'integer' },
      description: 'Requests allowed in the window',
    },
    'X-RateLimit-Remaining': {
      schema: { type: 'integer' },
      description: 'Requests left in the window',
    },
    'X-RateLimit-Reset': {
      schema: { type: 'integer' },
      description: 'Unix time (s) at which the window ends',
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
  schema: { type: 'integer' },
  description: 'Seconds to wait before trying again',
};

/** The success answer's body: the operation's `data` in the envelope, or the document itself. */
function successContent(answer: Answer): JsonObject {
  if (answer.document === 'text') return { 'text/plain': { schema: { type: 'string' } } };
  if (answer.document === 'json' || answer.data === undefined) {
    return { 'application/json': { schema: { type: 'object' } } };
  }
  const data = responseJsonSchema(answer.data);
  return {
    'application/json': {
      schema: {
        type: 'object',
        required: answer.paged ? ['success', 'data', 'meta'] : ['success', 'data'],
        additionalProperties: false,
        properties: {
          success: { const: true },
          data: answer.paged ? { type: 'array', items: data } : data,
          ...(answer.paged ? { meta: { $ref: '#/components/schemas/PageMeta' } } : {}),
        },
      },
    },
  };
}

function operation(route: HttpRouteEntry): JsonObject {
  const parameters: JsonObject[] = [];
  for (const match of route.path.matchAll(/\{(\w+)\}/g)) {
    parameters.push({ name: match[1], in: 'path', required: true, schema: { type: 'string' } });
  }
  if (route.query) {
    const schema = jsonSchema(route.query);
    const properties = (schema.properties ?? {}) as Record<string, JsonObject>;
    const required = new Set((schema.required ?? []) as string[]);
    for (const [name, property] of Object.entries(properties)) {
      parameters.push({ name, in: 'query', required: required.has(name), schema: property });
    }
  }
  const answer = answerOf(route);
  const headers = {
    'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' },
    ...(route.surface === 'api'
      ? {
          'X-RateLimit-Limit': { $ref: '#/components/headers/X-RateLimit-Limit' },
          'X-RateLimit-Remaining': { $ref: '#/components/headers/X-RateLimit-Remaining' },
          'X-RateLimit-Reset': { $ref: '#/components/headers/X-RateLimit-Reset' },
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
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    responses[String(status)] = {
      description: `${errorMeaning[status] ?? 'Refused'}: ${codes.join(', ')}`,
      headers: status === 429 ? { ...headers, 'Retry-After': retryAfter } : headers,
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
  const security =
    route.auth === 'user'
      ? [{ bearerAuth: [] }]
      : answer.optionalBearer
        ? [{}, { bearerAuth: [] }]
        : route.auth === 'iam'
          ? [{ awsSigV4: [] }]
          : route.surface === 'api'
            ? [{}, { apiKey: [] }]
            : [];
  return {
    operationId: route.name,
    summary: route.summary,
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
    responses,
    security,
    'x-surface': route.surface,
  };
}

/** What every delivery carries besides the body (docs/webhooks.md, "For receiver authors"). */
const deliveryHeaders: JsonObject[] = [
  {
    name: 'X-Service-Signature',
    description:
      'Lower-case hex HMAC-SHA256 of the raw body, keyed with the newest signing secret (the whole `whsec_…` string). Compare in constant time.',
  },
  { name: 'webhook-id', description: 'The event id (Standard Webhooks); deduplicate on it.' },
  { name: 'webhook-timestamp', description: 'Unix seconds of this attempt (Standard Webhooks).' },
  {
    name: 'webhook-signature',
    description:
      'Space-separated `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, one per live secret (two for 24 hours after a rotation), keyed with the base64-decoded part of the secret after `whsec_` (Standard Webhooks).',
  },
].map((header) => ({ ...header, in: 'header', required: true, schema: { type: 'string' } }));

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
            summary: `${type}: ${description}`,
            tags: ['webhooks'],
            parameters: deliveryHeaders,
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

/**
 * The OpenAPI 3.1 document of the service, generated from the route table and its valibot
 * schemas (so it cannot drift from what the handlers accept). Receivers live on Function URLs
 * on AWS; their paths are those the local runtime serves.
 */
export function openApiDocument(serverUrls: readonly string[]): JsonObject {
  const paths: Record<string, JsonObject> = {};
  for (const route of operations) {
    paths[route.path] ??= {};
    paths[route.path]![route.method.toLowerCase()] = operation(route);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Account, OTP and webhook service',
      version: '1.0.0',
      description:
        'Sign-up with email OTP, JWT sessions with rotating refresh tokens, SMS OTP, password reset, inbound gateway webhooks and signed outbound webhooks. Envelopes, error codes and rate limits as documented in the README.',
    },
    servers: serverUrls.map((url) => ({ url })),
    paths,
    webhooks: webhooksSection(),
    components,
  };
}
