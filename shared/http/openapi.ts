import { toJsonSchema } from '@valibot/to-json-schema';
import type * as v from 'valibot';
import { deliverableEventDefinitions } from '../domain/webhooks/event-catalogue.js';
import { eventTypeDocument } from './event-types.js';
import { statusOfCode } from './responses.js';
import { type HttpRouteEntry, operations } from './routes.js';

type JsonObject = Record<string, unknown>;

/** JSON Schema of a request part as the client sends it (typeMode input: before transforms). */
const jsonSchema = (schema: v.GenericSchema): JsonObject =>
  toJsonSchema(schema, {
    target: 'draft-2020-12',
    typeMode: 'input',
    errorMode: 'ignore',
  }) as JsonObject;

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
    SuccessEnvelope: {
      type: 'object',
      required: ['success', 'data'],
      properties: {
        success: { const: true },
        data: {},
        meta: {
          type: 'object',
          required: ['page', 'per_page', 'total'],
          properties: {
            page: { type: 'integer' },
            per_page: { type: 'integer' },
            total: { type: 'integer' },
          },
        },
      },
    },
    ErrorEnvelope: {
      type: 'object',
      required: ['success', 'error'],
      properties: {
        success: { const: false },
        error: {
          type: 'object',
          required: ['code', 'message', 'details'],
          properties: {
            code: { type: 'string', enum: errorCodes },
            message: { type: 'string' },
            details: {
              type: 'array',
              items: {
                type: 'object',
                required: ['field', 'message'],
                properties: { field: { type: 'string' }, message: { type: 'string' } },
              },
            },
          },
        },
      },
    },
  },
  headers: {
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

const json = (ref: string) => ({
  'application/json': { schema: { $ref: `#/components/schemas/${ref}` } },
});

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
  const rateLimitHeaders =
    route.surface === 'api'
      ? {
          'X-RateLimit-Limit': { $ref: '#/components/headers/X-RateLimit-Limit' },
          'X-RateLimit-Remaining': { $ref: '#/components/headers/X-RateLimit-Remaining' },
          'X-RateLimit-Reset': { $ref: '#/components/headers/X-RateLimit-Reset' },
        }
      : undefined;
  const errors = (description: string) => ({
    description,
    headers: rateLimitHeaders,
    content: json('ErrorEnvelope'),
  });
  const responses: JsonObject = {
    [String(route.successStatus ?? 200)]: {
      description: 'Success',
      headers: rateLimitHeaders,
      content: json('SuccessEnvelope'),
    },
    '400': errors('Invalid request: one detail per bad field'),
    '500': errors('Unexpected error; the body carries no internals'),
  };
  if (route.surface === 'api') responses['429'] = errors('Rate limited; see Retry-After');
  if (route.auth === 'user') responses['401'] = errors('Missing, invalid or revoked access token');
  if (route.surface === 'function-url') {
    responses['401'] = errors('Missing or invalid signature');
    responses['413'] = errors('Body over 1 MiB');
  }
  const security =
    route.auth === 'user'
      ? [{ bearerAuth: [] }]
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
