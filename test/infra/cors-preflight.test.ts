import { beforeAll, describe, expect, it, vi } from 'vitest';
import { routes } from '../../functions/routes.js';
import type { ApiRoute } from '../../shared/http/route-table.js';
import { synthesisTimeouts, synthStage } from './synthesized-stage.js';

vi.setConfig(synthesisTimeouts);

/**
 * Browser apps on AWS as in the local runtime (docs/conventions.md, "CORS"): the origins of the
 * `corsAllowedOrigins` context get their preflights answered by API Gateway, for the methods each
 * path serves, and the API functions put the CORS headers on their answers.
 */

interface Resource {
  Type: string;
  Properties: Record<string, unknown>;
}

const allowed = ['https://app.example.com', 'http://localhost:5173'];

/** cdk.json's context first, as `cdk synth` reads it; bundling skipped. */
const synth = (context: Record<string, unknown>): Record<string, Resource> =>
  synthStage(context).template.toJSON().Resources;

const ofType = (resources: Record<string, Resource>, type: string) =>
  Object.entries(resources).filter(([, resource]) => resource.Type === type);

/** Each API resource's path, from its chain of PathParts. */
function pathsOf(resources: Record<string, Resource>): Map<string, string> {
  const paths = new Map<string, string>();
  const pathOf = (id: string): string => {
    const known = paths.get(id);
    if (known !== undefined) return known;
    const { ParentId, PathPart } = resources[id]!.Properties as {
      ParentId: { Ref?: string };
      PathPart: string;
    };
    const parent = ParentId.Ref && resources[ParentId.Ref]?.Type === 'AWS::ApiGateway::Resource';
    const path = `${parent ? pathOf(ParentId.Ref!) : ''}/${PathPart}`;
    paths.set(id, path);
    return path;
  };
  for (const [id] of ofType(resources, 'AWS::ApiGateway::Resource')) pathOf(id);
  return paths;
}

/** path → the Access-Control-Allow-Methods of its preflight. */
function preflights(resources: Record<string, Resource>): Map<string, string> {
  const paths = pathsOf(resources);
  const found = new Map<string, string>();
  for (const [, method] of ofType(resources, 'AWS::ApiGateway::Method')) {
    const { HttpMethod, ResourceId, Integration, ApiKeyRequired } = method.Properties as {
      HttpMethod: string;
      ResourceId: { Ref: string };
      ApiKeyRequired?: boolean;
      Integration: {
        Type: string;
        IntegrationResponses: { ResponseParameters: Record<string, string> }[];
      };
    };
    if (HttpMethod !== 'OPTIONS') continue;
    expect(Integration.Type).toBe('MOCK');
    // Browsers send a preflight without the API key.
    expect(ApiKeyRequired ?? false).toBe(false);
    const headers = Integration.IntegrationResponses[0]!.ResponseParameters;
    found.set(
      paths.get(ResourceId.Ref) ?? '',
      headers['method.response.header.Access-Control-Allow-Methods']!.replaceAll("'", ''),
    );
  }
  return found;
}

const apiRoutes = routes.filter(
  (route): route is ApiRoute => route.surface === 'api' && route.method !== 'ANY',
);

describe('CORS on API Gateway', () => {
  // One synthesis with the origins, shared by the tests that read it.
  let resources: Record<string, Resource>;
  beforeAll(() => {
    resources = synth({ corsAllowedOrigins: allowed.join(',') });
  });

  it('answers the preflights of the allowed origins, with the methods of each path', () => {
    const expected = new Map<string, string[]>();
    for (const route of apiRoutes) {
      expected.set(route.path, [...(expected.get(route.path) ?? []), route.method]);
    }
    expect(Object.fromEntries(preflights(resources))).toEqual(
      Object.fromEntries([...expected].map(([path, methods]) => [path, methods.join(',')])),
    );
    // Several origins: the gateway echoes the request's Origin only when it is one of them.
    const [, options] = ofType(resources, 'AWS::ApiGateway::Method').find(
      ([, method]) => method.Properties.HttpMethod === 'OPTIONS',
    )!;
    const template = JSON.stringify(options.Properties.Integration);
    for (const origin of allowed) expect(template).toContain(origin);
  });

  it('gives the API functions the allowed origins, and no other function', () => {
    const functions = ofType(resources, 'AWS::Lambda::Function').map(
      ([, fn]) =>
        (fn.Properties.Environment as { Variables?: Record<string, unknown> } | undefined)
          ?.Variables ?? {},
    );
    const withOrigins = functions.filter((variables) => 'CORS_ALLOWED_ORIGINS' in variables);
    expect(withOrigins.length).toBe(
      functions.filter((variables) => 'RATE_LIMIT_MODE' in variables).length,
    );
    for (const variables of withOrigins) {
      expect(variables.CORS_ALLOWED_ORIGINS).toBe(allowed.join(','));
    }
  });

  it('answers no preflight when no origin is allowed', () => {
    expect(preflights(synth({})).size).toBe(0);
  });

  it('refuses a context that is not a list of origins', () => {
    expect(() => synth({ corsAllowedOrigins: 'app.example.com' })).toThrow(/corsAllowedOrigins/);
    expect(() => synth({ corsAllowedOrigins: '*,https://app.example.com' })).toThrow(
      /corsAllowedOrigins/,
    );
  });
});
