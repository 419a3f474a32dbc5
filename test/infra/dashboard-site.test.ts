import { beforeAll, describe, expect, it, vi } from 'vitest';
import { routes } from '../../functions/routes.js';
import { callsIn, type DashboardCall, dashboardCalls } from '../../infra/dashboard-calls.js';
import { siteFileGroups, viewerRequestFunctionCode } from '../../infra/dashboard-site.js';
import { buildDashboard, pageHeaders } from '../../shared/dashboard/build.js';
import { viewerAddressHeader, viewerNetworkHeader } from '../../shared/http/caller-address.js';
import { relay, relays } from '../support/dashboard-relay.js';
import { synthesisTimeouts, synthStage } from './synthesized-stage.js';

vi.setConfig(synthesisTimeouts);

/**
 * The developer dashboard and the API reference on AWS (infra/dashboard-site.ts): a CloudFront
 * distribution over a private bucket (origin access control) that relays `/v1/*` to the API stage
 * with the dashboard's own key, synthesized as `cdk synth` builds it from cdk.json.
 */

interface Resource {
  Type: string;
  Properties: Record<string, unknown>;
  DependsOn?: string[];
}

interface Behavior {
  PathPattern?: string;
  TargetOriginId: string;
  ViewerProtocolPolicy: string;
  AllowedMethods: string[];
  CachePolicyId: string;
  OriginRequestPolicyId?: string;
  ResponseHeadersPolicyId?: { Ref: string };
  FunctionAssociations?: { EventType: string; FunctionARN: unknown }[];
}

interface Origin {
  Id: string;
  DomainName: unknown;
  OriginAccessControlId?: unknown;
  S3OriginConfig?: { OriginAccessIdentity: string };
  CustomOriginConfig?: { OriginProtocolPolicy: string; OriginSSLProtocols: string[] };
  OriginCustomHeaders?: { HeaderName: string; HeaderValue: unknown }[];
}

interface DistributionConfig {
  DefaultRootObject: string;
  DefaultCacheBehavior: Behavior;
  CacheBehaviors: Behavior[];
  Origins: Origin[];
  Logging: { Bucket: unknown; Prefix: string };
  Aliases?: string[];
  ViewerCertificate?: Record<string, unknown>;
}

/** CloudFront's managed policies, by the ids AWS documents. */
const managed = {
  cachingOptimized: '658327ea-f89d-4fab-a63d-7e88639e58f6',
  cachingDisabled: '4135ea2d-6df8-44a3-9df3-4b5a84be39ad',
  allViewerExceptHostHeader: 'b689b0a8-53d0-40ab-baf2-68738e2966ac',
};

function synth(context: Record<string, unknown> = {}) {
  const template = synthStage(context).template.toJSON() as {
    Resources: Record<string, Resource>;
    Outputs: Record<string, { Value: unknown }>;
  };
  const ofType = (type: string) =>
    Object.entries(template.Resources).filter(([, resource]) => resource.Type === type);
  const [distributionId, distribution] = ofType('AWS::CloudFront::Distribution')[0]!;
  const config = distribution.Properties.DistributionConfig as DistributionConfig;
  const behaviorAt = (pattern: string) => {
    const behavior = config.CacheBehaviors.find((b) => b.PathPattern === pattern);
    if (behavior === undefined) throw new Error(`no behavior for ${pattern}`);
    return behavior;
  };
  const originOf = (behavior: Behavior) =>
    config.Origins.find((o) => o.Id === behavior.TargetOriginId)!;
  const [secretId] = ofType('AWS::SecretsManager::Secret').find(([, secret]) =>
    String(secret.Properties.Description).includes('dashboard'),
  )!;
  return { template, ofType, distributionId, config, behaviorAt, originOf, secretId };
}

/** `{{resolve:secretsmanager:<secret>:SecretString:::}}`, as CDK writes a secret's value. */
const dynamicReferenceTo = (secretId: string) => ({
  'Fn::Join': ['', ['{{resolve:secretsmanager:', { Ref: secretId }, ':SecretString:::}}']],
});

/** The headers a response headers policy puts on an answer, by lower-case name. */
function headersOf(config: Record<string, unknown>): Record<string, string> {
  const security = config.SecurityHeadersConfig as Record<string, Record<string, unknown>>;
  const custom = (config.CustomHeadersConfig as { Items: { Header: string; Value: string }[] })
    .Items;
  const sts = security.StrictTransportSecurity!;
  const headers: Record<string, string> = {
    'content-security-policy': String(security.ContentSecurityPolicy!.ContentSecurityPolicy),
    'strict-transport-security': `max-age=${sts.AccessControlMaxAgeSec}${sts.IncludeSubdomains ? '; includeSubDomains' : ''}${sts.Preload ? '; preload' : ''}`,
    'x-content-type-options': 'nosniff',
    'x-frame-options': String(security.FrameOptions!.FrameOption),
    'referrer-policy': String(security.ReferrerPolicy!.ReferrerPolicy),
  };
  for (const item of custom) headers[item.Header] = item.Value;
  // Every header the policy sets replaces the origin's.
  for (const setting of Object.values(security)) expect(setting.Override).toBe(true);
  return headers;
}

let stack: ReturnType<typeof synth>;
beforeAll(() => {
  stack = synth();
});

describe('the dashboard’s CloudFront distribution', () => {
  it('serves / and /docs from the private bucket through origin access control', () => {
    const { config, behaviorAt, originOf, ofType, distributionId } = stack;
    expect(config.DefaultRootObject).toBe('index.html');
    const pages = [config.DefaultCacheBehavior, behaviorAt('/docs')];
    const [siteOrigin] = new Set(pages.map(originOf));
    expect(new Set(pages.map(originOf)).size).toBe(1);
    expect(siteOrigin!.S3OriginConfig).toEqual({ OriginAccessIdentity: '' });
    const [oacId, oac] = ofType('AWS::CloudFront::OriginAccessControl')[0]!;
    expect(ofType('AWS::CloudFront::OriginAccessControl')).toHaveLength(1);
    expect(siteOrigin!.OriginAccessControlId).toEqual({ 'Fn::GetAtt': [oacId, 'Id'] });
    expect(oac.Properties.OriginAccessControlConfig).toMatchObject({
      OriginAccessControlOriginType: 's3',
      SigningBehavior: 'always',
      SigningProtocol: 'sigv4',
    });

    // The bucket: no public access, no website endpoint; readable only by this distribution.
    const [bucketId, bucket] = ofType('AWS::S3::Bucket').find(([id]) =>
      JSON.stringify(siteOrigin!.DomainName).includes(`"${id}"`),
    )!;
    expect(bucket.Properties.PublicAccessBlockConfiguration).toEqual({
      BlockPublicAcls: true,
      BlockPublicPolicy: true,
      IgnorePublicAcls: true,
      RestrictPublicBuckets: true,
    });
    expect(bucket.Properties.WebsiteConfiguration).toBeUndefined();
    const policy = ofType('AWS::S3::BucketPolicy').find(
      ([, p]) => (p.Properties.Bucket as { Ref: string }).Ref === bucketId,
    )![1];
    const statements = (
      policy.Properties.PolicyDocument as { Statement: Record<string, unknown>[] }
    ).Statement;
    const allows = statements.filter((s) => s.Effect === 'Allow');
    expect(allows).toEqual([
      {
        Action: 's3:GetObject',
        Effect: 'Allow',
        Principal: { Service: 'cloudfront.amazonaws.com' },
        Resource: { 'Fn::Join': ['', [{ 'Fn::GetAtt': [bucketId, 'Arn'] }, '/*']] },
        Condition: {
          StringEquals: {
            'AWS:SourceArn': {
              'Fn::Join': [
                '',
                [
                  'arn:',
                  { Ref: 'AWS::Partition' },
                  ':cloudfront::',
                  { Ref: 'AWS::AccountId' },
                  ':distribution/',
                  { Ref: distributionId },
                ],
              ],
            },
          },
        },
      },
    ]);
    // And only over TLS.
    expect(statements).toContainEqual(
      expect.objectContaining({
        Effect: 'Deny',
        Condition: { Bool: { 'aws:SecureTransport': 'false' } },
      }),
    );
  });

  it('caches pages and fingerprinted assets by their own Cache-Control, GET and HEAD only', () => {
    const { config, behaviorAt } = stack;
    for (const behavior of [config.DefaultCacheBehavior, behaviorAt('/docs')]) {
      expect(behavior).toMatchObject({
        AllowedMethods: ['GET', 'HEAD'],
        CachePolicyId: managed.cachingOptimized,
        ViewerProtocolPolicy: 'redirect-to-https',
      });
    }
  });

  it('relays /v1/* to the API stage uncached, through the relay function, every viewer header but Host', () => {
    const { behaviorAt, originOf, ofType, template } = stack;
    const api = behaviorAt('/v1/*');
    expect(api).toMatchObject({
      ViewerProtocolPolicy: 'https-only',
      AllowedMethods: ['GET', 'HEAD', 'OPTIONS', 'PUT', 'PATCH', 'POST', 'DELETE'],
      CachePolicyId: managed.cachingDisabled,
      OriginRequestPolicyId: managed.allViewerExceptHostHeader,
    });
    expect(api.ResponseHeadersPolicyId).toBeUndefined();
    const [restApiId] = ofType('AWS::ApiGateway::RestApi')[0]!;
    const origin = originOf(api);
    expect(origin.DomainName).toEqual({
      'Fn::Join': [
        '',
        [
          { Ref: restApiId },
          '.execute-api.',
          { Ref: 'AWS::Region' },
          '.',
          { Ref: 'AWS::URLSuffix' },
        ],
      ],
    });
    expect(origin.CustomOriginConfig).toMatchObject({
      OriginProtocolPolicy: 'https-only',
      OriginSSLProtocols: ['TLSv1.2'],
    });
    // The relay function runs on every /v1 request, before CloudFront relays it.
    const [functionId] = ofType('AWS::CloudFront::Function')[0]!;
    expect(api.FunctionAssociations).toEqual([
      { EventType: 'viewer-request', FunctionARN: { 'Fn::GetAtt': [functionId, 'FunctionARN'] } },
    ]);
    expect(template.Resources[functionId]!.Properties).toMatchObject({
      FunctionCode: viewerRequestFunctionCode(dashboardCalls()),
      FunctionConfig: { Runtime: 'cloudfront-js-2.0' },
    });
  });

  it('adds the dashboard’s key to the relayed calls as a dynamic reference, never its value', () => {
    const { behaviorAt, originOf, ofType, secretId, template } = stack;
    expect(originOf(behaviorAt('/v1/*')).OriginCustomHeaders).toEqual([
      { HeaderName: 'x-api-key', HeaderValue: dynamicReferenceTo(secretId) },
    ]);
    // The key takes the same generated value; the template holds no value of it anywhere.
    const [keyId, key] = ofType('AWS::ApiGateway::ApiKey').find(([, k]) =>
      String(k.Properties.Name).endsWith('-dashboard'),
    )!;
    expect(key.Properties.Value).toEqual(dynamicReferenceTo(secretId));
    expect(template.Resources[secretId]!.Properties.SecretString).toBeUndefined();
    expect(template.Resources[secretId]!.Properties.GenerateSecretString).toMatchObject({
      ExcludePunctuation: true,
      PasswordLength: 64,
    });
    expect(template.Outputs.DashboardApiKeyId!.Value).toEqual({ Ref: keyId });
  });

  it('tells every API function, and only those, which key the distribution holds', () => {
    const { ofType } = stack;
    const [keyId] = ofType('AWS::ApiGateway::ApiKey').find(([, k]) =>
      String(k.Properties.Name).endsWith('-dashboard'),
    )!;
    const functions = ofType('AWS::Lambda::Function').filter(
      ([id]) => !id.startsWith('CustomCDKBucketDeployment'),
    );
    const told = functions.filter(
      ([, fn]) =>
        (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables
          .DASHBOARD_API_KEY_ID !== undefined,
    );
    const apiEntries = new Set(routes.filter((r) => r.surface === 'api').map((r) => r.entry));
    expect(told).toHaveLength(apiEntries.size);
    for (const [, fn] of told) {
      expect(
        (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables
          .DASHBOARD_API_KEY_ID,
      ).toEqual({ Ref: keyId });
    }
  });

  it('tells every function that emails or checks passkeys where the dashboard is: the links of its emails, the passkeys’ origin', () => {
    const { ofType, distributionId } = stack;
    const emailing = new Set(
      routes
        .filter((route) => route.needs.email === true || route.needs.passkeys === true)
        .map((route) => route.entry),
    );
    const told = ofType('AWS::Lambda::Function').filter(
      ([, fn]) =>
        (fn.Properties.Environment as { Variables?: Record<string, unknown> } | undefined)
          ?.Variables?.DASHBOARD_URL !== undefined,
    );
    expect(told).toHaveLength(emailing.size);
    expect(emailing.size).toBeGreaterThan(0);
    for (const [, fn] of told) {
      // The failure digest links to `<DASHBOARD_URL>#/endpoints/<id>?status=failed`.
      expect(
        (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables
          .DASHBOARD_URL,
      ).toEqual({
        'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [distributionId, 'DomainName'] }, '/']],
      });
    }
  });

  it('puts the pages’ own security headers on them, the reference page its own policy', () => {
    const { config, behaviorAt, template } = stack;
    const policyOf = (behavior: Behavior) =>
      template.Resources[behavior.ResponseHeadersPolicyId!.Ref]!.Properties
        .ResponseHeadersPolicyConfig as Record<string, unknown>;
    expect(headersOf(policyOf(config.DefaultCacheBehavior))).toEqual(pageHeaders.dashboard);
    expect(headersOf(policyOf(behaviorAt('/docs')))).toEqual(pageHeaders.reference);
    // What the browser suite checks on the local runtime, here for CloudFront.
    const dashboard = headersOf(policyOf(config.DefaultCacheBehavior));
    expect(dashboard['content-security-policy']).toContain("default-src 'none'");
    expect(dashboard['content-security-policy']).not.toMatch(/unsafe|https?:/);
    expect(dashboard['strict-transport-security']).toMatch(/^max-age=\d{8}; includeSubDomains$/);
    expect(dashboard['x-frame-options']).toBe('DENY');
    expect(dashboard['referrer-policy']).toBe('no-referrer');
  });

  it('answers plain HTTP with nothing: pages redirect to HTTPS, API calls are refused', () => {
    const { config } = stack;
    const policies = [config.DefaultCacheBehavior, ...config.CacheBehaviors].map(
      (b) => b.ViewerProtocolPolicy,
    );
    expect(policies).not.toContain('allow-all');
  });

  it('logs the distribution and the bucket into a private log bucket kept 90 days', () => {
    const { config, ofType } = stack;
    const [logBucketId, logBucket] = ofType('AWS::S3::Bucket').find(([id]) =>
      JSON.stringify(config.Logging.Bucket).includes(id),
    )!;
    expect(config.Logging).toEqual({
      Bucket: { 'Fn::GetAtt': [logBucketId, 'RegionalDomainName'] },
      Prefix: 'cloudfront/',
    });
    expect(logBucket.Properties).toMatchObject({
      PublicAccessBlockConfiguration: { BlockPublicAcls: true, RestrictPublicBuckets: true },
      LifecycleConfiguration: { Rules: [{ ExpirationInDays: 90, Status: 'Enabled' }] },
    });
    const logged = ofType('AWS::S3::Bucket').filter(([, b]) =>
      JSON.stringify(b.Properties.LoggingConfiguration ?? {}).includes(logBucketId),
    );
    expect(logged).toHaveLength(1);
  });

  it('names the dashboard’s address in the outputs', () => {
    const { template, distributionId } = stack;
    expect(template.Outputs.DashboardUrl!.Value).toEqual({
      'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [distributionId, 'DomainName'] }, '/']],
    });
  });
});

describe('the dashboard’s files in the bucket', () => {
  const built = buildDashboard();
  const matches = (pattern: string, path: string) =>
    new RegExp(`^${pattern.replace(/[.]/g, '\\.').replace(/\*/g, '.*')}$`).test(path);

  it('are uploaded each by exactly one deployment, with the type and caching the local runtime sends', () => {
    const { ofType } = stack;
    const deployments = ofType('Custom::CDKBucketDeployment');
    expect(deployments).toHaveLength(siteFileGroups.length);
    for (const file of built) {
      const uploading = deployments.filter(([, d]) =>
        (d.Properties.Include as string[]).some((pattern) => matches(pattern, file.path)),
      );
      expect(uploading, file.path).toHaveLength(1);
      expect(uploading[0]![1].Properties).toMatchObject({
        Exclude: ['*'],
        SystemMetadata: { 'content-type': file.contentType, 'cache-control': file.cacheControl },
      });
    }
  });

  it('keep old assets for pages loaded before a deploy, and invalidate the pages after the assets', () => {
    const { ofType, template, distributionId } = stack;
    const deployments = ofType('Custom::CDKBucketDeployment');
    const pages = deployments.filter(([, d]) => d.Properties.DistributionId !== undefined);
    expect(pages).toHaveLength(1);
    const [pagesId, pagesDeployment] = pages[0]!;
    expect(pagesDeployment.Properties).toMatchObject({
      Include: ['index.html', 'docs'],
      Prune: true,
      DistributionId: { Ref: distributionId },
      DistributionPaths: ['/', '/index.html', '/docs'],
    });
    for (const [id, assets] of deployments.filter(([id]) => id !== pagesId)) {
      expect(assets.Properties.Prune, id).toBe(false);
      expect(template.Resources[pagesId]!.DependsOn ?? [], id).toContain(id);
    }
  });

  it('name every asset after its content, and the pages link those names', () => {
    const assets = built.filter((file) => file.path.startsWith('assets/'));
    for (const asset of assets) expect(asset.path).toMatch(/-[A-Za-z0-9]{8,}\.(js|css)$/);
    const pages = built.filter((file) => !file.path.startsWith('assets/'));
    const linked = pages.flatMap((page) =>
      [...page.body.toString().matchAll(/\/assets\/[\w.-]+/g)].map((match) => match[0]),
    );
    expect(new Set(linked)).toEqual(new Set(assets.map((asset) => `/${asset.path}`)));
  });

  it('hold no API key: the page never sends one, CloudFront adds it', () => {
    for (const file of built) {
      expect(file.body.toString(), file.path).not.toMatch(/x-api-key/i);
    }
  });
});

/** A request URI of a route's path, its ids filled in as the API issues them. */
const uriOf = (path: string) =>
  `/v1${path.replace(/\{id\}/g, 'whk_abcdefghij234567abcd').replace(/\{\w+\}/g, 'dlv_abcdefghij234567abcd')}`;

describe('the relay function (CloudFront Functions, JavaScript 2.0)', () => {
  it('writes the viewer’s address and network over forged ones and drops a viewer’s own key', async () => {
    const forged = {
      [viewerAddressHeader]: { value: '198.51.100.1' },
      [viewerNetworkHeader]: { value: '198.51.100.1' },
      'x-api-key': { value: 'a key a viewer found somewhere' },
      authorization: { value: 'Bearer token' },
    };
    const request = (ip: string) =>
      relay({
        viewer: { ip },
        request: { method: 'GET', uri: '/v1/profile', headers: { ...forged } },
      });

    expect((await request('203.0.113.9')).headers).toEqual({
      [viewerAddressHeader]: { value: '203.0.113.9' },
      [viewerNetworkHeader]: { value: '203.0.113.9' },
      authorization: { value: 'Bearer token' },
    });
    // An IPv6 viewer is counted by its /64: the web ACL reads the network, the API the address.
    expect((await request('2001:db8:4:2:8a2e:370:7334:1')).headers).toMatchObject({
      [viewerAddressHeader]: { value: '2001:db8:4:2:8a2e:370:7334:1' },
      [viewerNetworkHeader]: { value: '2001:db8:4:2::' },
    });
    expect((await request('2001:db8::1')).headers).toMatchObject({
      [viewerNetworkHeader]: { value: '2001:db8:0:0::' },
    });
  });

  it('relays every call the dashboard makes, and no other route or method of the API', async () => {
    const calls = new Set(dashboardCalls().map((call) => `${call.method} ${call.path}`));
    const apiRoutes = routes.filter(
      (route): route is typeof route & { method: string; path: string } =>
        route.surface === 'api' && 'method' in route && route.method !== 'ANY',
    );
    const relayed = new Set<string>();
    for (const route of apiRoutes) {
      for (const method of ['GET', 'HEAD', 'OPTIONS', 'POST', 'PUT', 'PATCH', 'DELETE']) {
        if (await relays(method, uriOf(route.path))) relayed.add(`${method} ${route.path}`);
      }
    }

    expect([...relayed].sort()).toEqual([...calls].sort());
    // Among what it refuses: every other way to spend the dashboard's key.
    for (const [method, uri] of [
      ['POST', '/v1/otp/send'],
      ['GET', '/v1/verify/phone'],
      ['POST', '/v1/events'],
      ['DELETE', '/v1/webhooks/whk_a/deliveries/dlv_b'],
      ['GET', '/v1/webhooks/../verify/phone'],
      ['GET', '/v1/webhooks/%2e%2e'],
      ['POST', '/v1/auth/login/'],
      // A credential's id has no prefix: the relay tells it from the paths beside it.
      ['DELETE', '/v1/auth/passkeys/login'],
      ['DELETE', '/v1/auth/passkeys/registration-options'],
    ] as const) {
      expect(await relays(method, uri), `${method} ${uri}`).toBe(false);
    }
    for (const credential of ['Xq3vJ2kL9mN4pQ7rS1tU5w', 'login-AbC_1']) {
      expect(await relays('DELETE', `/v1/auth/passkeys/${credential}`), credential).toBe(true);
    }
  });

  it('answers what it does not relay with a 404 in the API’s envelope, never cached', async () => {
    const answer = await relay({
      viewer: { ip: '203.0.113.9' },
      request: { method: 'POST', uri: '/v1/otp/send', headers: {} },
    });

    expect(answer).toMatchObject({
      statusCode: 404,
      headers: {
        'content-type': { value: 'application/json; charset=utf-8' },
        'cache-control': { value: 'no-store' },
      },
    });
    const body = JSON.parse((answer as { body: { data: string } }).body.data);
    expect(body).toEqual({
      success: false,
      error: { code: 'not_found', message: expect.any(String), details: [] },
    });
  });

  it('relays only operations of the route table: each call the dashboard makes is one', () => {
    const operations = new Set(
      routes
        .filter((route) => route.surface === 'api' && 'method' in route)
        .map(
          (route) =>
            `${'method' in route ? route.method : ''} ${'path' in route ? route.path : ''}`,
        ),
    );

    const calls = dashboardCalls();

    expect(calls.length).toBeGreaterThan(20);
    for (const call of calls)
      expect(operations, `${call.method} ${call.path}`).toContain(`${call.method} ${call.path}`);
  });
});

describe('the dashboard’s calls, read from its sources', () => {
  const read = (source: string): DashboardCall[] => callsIn('page.tsx', source);

  it('finds a call the moment a page makes it: nothing to add by hand', () => {
    const page = `
      await session.call((api) => api.POST('/webhooks/{id}/recover', { params, body }));
      const { data } = await session.call((api) =>
        api.GET(
          '/webhooks/{id}/deliveries/{delivery_id}',
          { params },
        ),
      );
      <a href="/v1/openapi.json">the document</a>`;

    expect(read(page)).toEqual([
      { method: 'POST', path: '/webhooks/{id}/recover' },
      { method: 'GET', path: '/webhooks/{id}/deliveries/{delivery_id}' },
      { method: 'GET', path: '/openapi.json' },
    ]);
  });

  it('refuses a call it could not read, rather than leave it unrelayed', () => {
    expect(() => read('api.DELETE(pathOf(endpoint), { params })')).toThrow(/not a string literal/);
    const interpolated = ['api.GET(`/webhooks/', '$', '{id}`)'].join('');
    expect(() => read(interpolated)).toThrow(/not a string literal/);
    expect(() => read("await fetch('/v1/webhooks')")).toThrow(/typed client/);
  });
});

describe('the web ACL behind the distribution', () => {
  interface RateRule {
    Name: string;
    Statement: {
      RateBasedStatement: {
        AggregateKeyType: string;
        ForwardedIPConfig?: unknown;
        ScopeDownStatement: unknown;
      };
    };
  }

  it('counts relayed calls by the viewer’s address, and only calls carrying the dashboard’s key', () => {
    const { ofType, secretId } = stack;
    const rules = (ofType('AWS::WAFv2::WebACL')[0]![1].Properties.Rules as RateRule[]).slice(0, 2);
    const carriesDashboardKey = {
      ByteMatchStatement: {
        FieldToMatch: { SingleHeader: { Name: 'x-api-key' } },
        PositionalConstraint: 'EXACTLY',
        SearchString: dynamicReferenceTo(secretId),
        TextTransformations: [{ Priority: 0, Type: 'NONE' }],
      },
    };
    expect(rules.map((rule) => [rule.Name, rule.Statement.RateBasedStatement])).toEqual([
      [
        'RequestsPerSourceAddress',
        expect.objectContaining({
          AggregateKeyType: 'IP',
          // Signed event publications are counted apart too (infra/api-stage.ts).
          ScopeDownStatement: {
            NotStatement: {
              Statement: {
                OrStatement: { Statements: [carriesDashboardKey, expect.anything()] },
              },
            },
          },
        }),
      ],
      [
        'RequestsPerDashboardViewer',
        expect.objectContaining({
          AggregateKeyType: 'FORWARDED_IP',
          ForwardedIPConfig: { HeaderName: viewerNetworkHeader, FallbackBehavior: 'MATCH' },
          ScopeDownStatement: carriesDashboardKey,
        }),
      ],
    ]);
  });
});

describe('the stage’s direct callers', () => {
  it('reach it over IPv4 only, which the web ACL counts per address', () => {
    const [, restApi] = stack.ofType('AWS::ApiGateway::RestApi')[0]!;

    // WAF counts an address as a whole: were the stage dual-stack, an IPv6 caller could take a
    // fresh address of its /64 for every request. The API's own limits count the /64.
    expect(restApi.Properties.EndpointConfiguration).toEqual({ Types: ['REGIONAL'] });
  });
});

describe('the dashboard’s context values', () => {
  it('replaces the key everywhere it is used when its generation is bumped', () => {
    const next = synth({ dashboardApiKeyGeneration: 2 });
    expect(next.secretId).not.toBe(stack.secretId);
    const everywhere = JSON.stringify(next.template.Resources);
    expect(everywhere).not.toContain(`"${stack.secretId}"`);
    // Key value, origin header, and the two web ACL rules.
    expect(everywhere.split(`{"Ref":"${next.secretId}"}`).length - 1).toBe(4);
  });

  it('serves the dashboard on its own domain with TLS 1.2 at least, and adds its records in the zone', () => {
    const certificateArn =
      'arn:aws:acm:us-east-1:123456789012:certificate/11111111-2222-3333-4444-555555555555';
    const { config, template, ofType } = synth({
      dashboardDomainName: 'dashboard.example.com',
      dashboardCertificateArn: certificateArn,
      hostedZoneId: 'Z0123456789ABCDEFGHIJ',
      hostedZoneName: 'example.com',
    });
    expect(config.Aliases).toEqual(['dashboard.example.com']);
    expect(config.ViewerCertificate).toEqual({
      AcmCertificateArn: certificateArn,
      MinimumProtocolVersion: 'TLSv1.2_2021',
      SslSupportMethod: 'sni-only',
    });
    expect(template.Outputs.DashboardUrl!.Value).toBe('https://dashboard.example.com/');
    const records = ofType('AWS::Route53::RecordSet').filter(
      ([, r]) => r.Properties.Name === 'dashboard.example.com.',
    );
    expect(records.map(([, r]) => r.Properties.Type).sort()).toEqual(['A', 'AAAA']);
  });

  it('refuses a dashboard domain without a certificate in us-east-1', () => {
    expect(() =>
      synth({
        dashboardDomainName: 'dashboard.example.com',
        dashboardCertificateArn:
          'arn:aws:acm:eu-west-1:123456789012:certificate/11111111-2222-3333-4444-555555555555',
      }),
    ).toThrow(/us-east-1/);
    expect(() => synth({ dashboardDomainName: 'dashboard.example.com' })).toThrow(/us-east-1/);
  });

  it('keeps the name dashboard for the dashboard’s own key', () => {
    expect(() => synth({ apiClients: 'ios-app,dashboard' })).toThrow(/not dashboard/);
  });
});
