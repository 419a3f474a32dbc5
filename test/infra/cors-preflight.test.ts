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

  it('refuses a preflight of another origin or method with 403 in the envelope, with the request id', () => {
    const options = ofType(resources, 'AWS::ApiGateway::Method').filter(
      ([, method]) => method.Properties.HttpMethod === 'OPTIONS',
    );
    const paths = pathsOf(resources);
    const methodsOf = (path: string) =>
      apiRoutes.filter((route) => route.path === path).map((route) => route.method);
    for (const [, method] of options) {
      const { Integration, MethodResponses, ResourceId } = method.Properties as {
        ResourceId: { Ref: string };
        Integration: {
          RequestTemplates: Record<string, string>;
          IntegrationResponses: {
            StatusCode: string;
            SelectionPattern?: string;
            ResponseParameters: Record<string, string>;
            ResponseTemplates: Record<string, string>;
          }[];
        };
        MethodResponses: { StatusCode: string; ResponseParameters: Record<string, boolean> }[];
      };
      const path = paths.get(ResourceId.Ref)!;
      // The mock decides: 204 only when the Origin is allowed and the method is one of the path's.
      const decision = Integration.RequestTemplates['application/json']!;
      const condition =
        /#if\((.*)\)\n\{"statusCode": 204\}\n#else\n\{"statusCode": 403\}\n#end$/.exec(
          decision,
        )?.[1];
      expect(condition, path).toBeDefined();
      for (const origin of allowed) expect(condition).toContain(`$origin == "${origin}"`);
      for (const verb of methodsOf(path)) expect(condition).toContain(`$method == "${verb}"`);
      expect(condition).not.toContain('"OPTIONS"');
      expect(decision).toContain('header.get("Access-Control-Request-Method")');

      const [allowedAnswer, refused] = Integration.IntegrationResponses;
      expect(allowedAnswer!.StatusCode).toBe('204');
      expect(allowedAnswer!.SelectionPattern).toBeUndefined();
      // The allowed origin is echoed, never the first of the list for everyone.
      expect(allowedAnswer!.ResponseTemplates['application/json']).toContain(
        '#set($context.responseOverride.header.Access-Control-Allow-Origin = $origin)',
      );
      expect(refused!.StatusCode).toBe('403');
      expect(refused!.SelectionPattern).toBe('403');
      expect(refused!.ResponseParameters).toEqual({
        'method.response.header.Content-Type': "'application/json'",
        'method.response.header.X-Request-Id': 'context.requestId',
        'method.response.header.Cache-Control': "'no-store'",
        'method.response.header.Vary': "'Origin'",
      });
      expect(JSON.parse(refused!.ResponseTemplates['application/json']!)).toEqual({
        success: false,
        error: {
          code: 'forbidden',
          message: expect.stringMatching(/^Cross-origin request refused/),
          details: [],
        },
      });
      expect(MethodResponses.map((response) => response.StatusCode)).toEqual(['204', '403']);
      expect(Object.keys(MethodResponses[1]!.ResponseParameters).sort()).toEqual(
        Object.keys(refused!.ResponseParameters).sort(),
      );
    }
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
