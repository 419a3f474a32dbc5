import { validate } from '@readme/openapi-parser';
import { describe, expect, it } from 'vitest';
import { openApiDocument } from '../../shared/http/openapi.js';
import { operations } from '../../shared/http/routes.js';

type Operation = {
  operationId: string;
  requestBody?: {
    content: { 'application/json': { schema: { properties?: Record<string, unknown> } } };
  };
  parameters?: { name: string; in: string }[];
};

const document = openApiDocument(['http://localhost:3000/v1']);
const paths = document.paths as Record<string, Record<string, Operation>>;

describe('the OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document according to a real parser', async () => {
    const result = await validate(structuredClone(document) as never);
    expect(result.valid ? [] : result.errors).toEqual([]);
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
});
