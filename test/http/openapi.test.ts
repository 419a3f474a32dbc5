import { validate } from '@readme/openapi-parser';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { operations } from '../../functions/routes.js';
import { deliverableEventDefinitions } from '../../shared/domain/webhooks/event-catalogue.js';
import { eventTypeDocument } from '../../shared/http/event-types.js';
import { openApiDocument } from '../../shared/http/openapi.js';

type Operation = {
  operationId: string;
  security?: Record<string, string[]>[];
  responses: Record<string, unknown>;
  requestBody?: {
    content: { 'application/json': { schema: { properties?: Record<string, unknown> } } };
  };
  parameters?: { name: string; in: string }[];
};

const document = openApiDocument(operations, ['http://localhost:3000/v1']);
const paths = document.paths as Record<string, Record<string, Operation>>;

describe('the OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document according to a real parser', async () => {
    const result = await validate(structuredClone(document) as never);
    expect(result.valid ? [] : result.errors).toEqual([]);
  });

  it('is checked with its webhooks: a broken event entry makes it invalid', async () => {
    const broken = structuredClone(document) as { webhooks: Record<string, { post: object }> };
    broken.webhooks['order.created'] = { post: { requestBody: { content: 'not a map' } } };
    const result = await validate(broken as never);
    expect(result.valid).toBe(false);
  });

  it('describes every outbound event in webhooks, from the catalogue publication checks', () => {
    const webhooks = document.webhooks as Record<
      string,
      { post: { requestBody: { content: Record<string, { schema: unknown; example: unknown }> } } }
    >;
    expect(Object.keys(webhooks)).toEqual(deliverableEventDefinitions.map((d) => d.type));
    for (const definition of deliverableEventDefinitions) {
      const { schema, example } = eventTypeDocument(definition);
      expect(webhooks[definition.type]?.post.requestBody.content['application/json']).toEqual({
        schema,
        example,
      });
    }
  });

  it('gives request examples that the handlers accept', () => {
    const accepted: string[] = [];
    for (const route of operations) {
      const operation = paths[route.path]?.[route.method.toLowerCase()];
      const schema = operation?.requestBody?.content['application/json'].schema as
        | { properties?: Record<string, { examples?: unknown[] }>; required?: string[] }
        | undefined;
      if (route.body === undefined || schema?.properties === undefined) continue;
      const example = Object.fromEntries(
        Object.entries(schema.properties)
          .filter(([, property]) => property.examples !== undefined)
          .map(([name, property]) => [name, property.examples?.[0]]),
      );
      // A body whose required fields all have examples is an example request: the handler's
      // own schema must take it.
      if (!(schema.required ?? []).every((name) => name in example)) continue;
      const parsed = v.safeParse(route.body, example);
      expect(parsed.issues?.map((issue) => issue.message) ?? [], route.name).toEqual([]);
      accepted.push(route.name);
    }
    expect(accepted).toEqual(
      expect.arrayContaining(['signup', 'login', 'verifySignupOtp', 'resetPasswordWithOtp']),
    );
  });

  it("states API Gateway's own answers on every API operation: 403 with the request id, 429 with its Retry-After", () => {
    type Response = { description: string; headers: Record<string, { required?: boolean }> };
    for (const route of operations) {
      const { responses } = paths[route.path]![route.method.toLowerCase()]!;
      const forbidden = responses['403'] as Response | undefined;
      const limited = responses['429'] as Response | undefined;
      if (route.surface !== 'api') {
        expect(forbidden?.description ?? '', route.name).not.toContain('API Gateway');
        continue;
      }
      // A missing or unknown key, or a request the web ACL blocked.
      expect(forbidden?.description, route.name).toMatch(/x-api-key.*web ACL/);
      expect(forbidden!.headers['X-Request-Id']).toBeDefined();
      // The usage plan's rate and quota, and the web ACL's rate rules, with their fixed waits.
      expect(limited?.description, route.name).toMatch(
        /Retry-After 1\b.*daily quota.*Retry-After 3600.*web ACL.*Retry-After 300\b/,
      );
      expect(limited!.headers['Retry-After']).toEqual(expect.objectContaining({ required: true }));
      expect(limited!.headers['X-Request-Id']).toBeDefined();
      // The gateway reports no window: its answers have none of the X-RateLimit-* headers.
      for (const name of ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']) {
        expect(limited!.headers[name]?.required, `${route.name} ${name}`).toBe(false);
        expect(forbidden!.headers[name]?.required, `${route.name} ${name}`).toBe(false);
      }
    }
  });

  it('has one operation for every operation of the route table', () => {
    const operationIds = Object.values(paths).flatMap((methods) =>
      Object.values(methods).map((op) => op.operationId),
    );
    expect(operationIds.sort()).toEqual(operations.map((route) => route.name).sort());
  });

  it('describes request bodies from the same schemas the handlers validate with', () => {
    const signup = paths['/auth/signup']?.post;
    const properties = signup?.requestBody?.content['application/json'].schema.properties ?? {};
    expect(Object.keys(properties).sort()).toEqual(['email', 'name', 'password', 'phone']);
  });

  it('lists query and path parameters', () => {
    expect(paths['/verify/phone']?.get?.parameters).toEqual([
      expect.objectContaining({ name: 'phone', in: 'query' }),
    ]);
    expect(paths['/webhooks/{id}/deliveries']?.get?.parameters?.map((p) => p.name)).toEqual(
      expect.arrayContaining(['id', 'page', 'per_page', 'status', 'created_after']),
    );
  });

  it('declares the Bearer token of sendOtp and verifyOtp as an alternative, with its 401', () => {
    for (const path of ['/otp/send', '/otp/verify']) {
      const operation = paths[path]?.post;
      expect(operation?.security, path).toEqual([{ apiKey: [] }, { apiKey: [], bearerAuth: [] }]);
      expect(Object.keys(operation?.responses ?? {}), path).toContain('401');
    }
  });
});
