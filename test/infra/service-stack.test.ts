import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { routes } from '../../functions/routes.js';
import { constructIdOf } from '../../infra/area-stack.js';
import { defaultApiTiers } from '../../infra/settings.js';
import { itemFamilyIndex, leadingKeyPattern } from '../../shared/adapters/keys.js';
import { tableIndexes, tableKeys, ttlAttribute } from '../../shared/adapters/table-definition.js';
import { smsCapNearMessage, smsCapReachedMessage } from '../../shared/domain/otp/sms-cap.js';
import {
  itemFamiliesOf,
  mergedNeeds,
  readOnlyFamiliesOf,
  routesByEntry,
} from '../../shared/http/route-needs.js';
import type { ApiRoute, Route } from '../../shared/http/route-table.js';
import { checkedInContext, synthesisTimeouts, synthStage } from './synthesized-stage.js';

vi.setConfig(synthesisTimeouts);

/** A CloudFormation resource as the template holds it. */
interface Resource {
  Type: string;
  Properties: Record<string, unknown> & {
    Environment?: { Variables?: Record<string, unknown> };
  };
  DeletionPolicy?: string;
  UpdateReplacePolicy?: string;
}

interface Statement {
  Effect: string;
  Action: string | string[];
  Resource?: unknown;
  NotResource?: unknown;
  Condition?: unknown;
}

/** The stage's stacks as one template (test/infra/synthesized-stage.ts). */
const synth = (context: Record<string, unknown> = {}): Template => synthStage(context).template;

let template: Template;
let resources: Record<string, Resource>;

beforeAll(() => {
  template = synth();
  resources = template.toJSON().Resources;
});

const entries = [...routesByEntry(routes).keys()];
const apiRoutes = routes.filter((route): route is ApiRoute => route.surface === 'api');
const entriesOn = (surface: Route['surface']) =>
  [...routesByEntry(routes)].filter(([, shared]) => shared[0]?.surface === surface);

const ofType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);
/** The service's own functions: not CDK's BucketDeployment handler (infra/dashboard-site.ts). */
const serviceFunctions = () =>
  ofType('AWS::Lambda::Function').filter(([id]) => !id.startsWith('CustomCDKBucketDeployment'));
const asArray = <T>(value: T | T[]): T[] => (Array.isArray(value) ? value : [value]);

/** The logical id of the function built for an entry (construct id + CDK's 8-character hash). */
function functionIdOf(entry: string): string {
  const pattern = new RegExp(`^${constructIdOf(entry)}[0-9A-F]{8}$`);
  const found = ofType('AWS::Lambda::Function').filter(([id]) => pattern.test(id));
  expect(found, `one function for ${entry}`).toHaveLength(1);
  return found[0]![0];
}

const functionOf = (entry: string): Resource => resources[functionIdOf(entry)]!;

/** The logical id of the function's `live` alias: what every surface invokes, never $LATEST. */
function aliasIdOf(entry: string): string {
  const found = ofType('AWS::Lambda::Alias').filter(
    ([, alias]) =>
      isRef(alias.Properties.FunctionName, functionIdOf(entry)) && alias.Properties.Name === 'live',
  );
  expect(found, `the live alias of ${entry}`).toHaveLength(1);
  return found[0]![0];
}

/** Whether a template value names the function's `live` alias. */
const namesAlias = (value: unknown, entry: string): boolean =>
  JSON.stringify(value).includes(JSON.stringify({ Ref: aliasIdOf(entry) }));

/** The queue event source of a worker, which invokes its alias. */
const mappingOf = (entry: string) =>
  ofType('AWS::Lambda::EventSourceMapping').find(([, m]) =>
    namesAlias(m.Properties.FunctionName, entry),
  );
const environmentOf = (entry: string): Record<string, unknown> =>
  functionOf(entry).Properties.Environment?.Variables ?? {};

const roleOf = (entry: string): string =>
  (functionOf(entry).Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];

/** Every statement of the policies attached to the function's role. */
function statementsOf(entry: string): Statement[] {
  const role = roleOf(entry);
  return ofType('AWS::IAM::Policy')
    .filter(([, policy]) => (policy.Properties.Roles as unknown[]).some((r) => isRef(r, role)))
    .flatMap(
      ([, policy]) => (policy.Properties.PolicyDocument as { Statement: Statement[] }).Statement,
    );
}

const isRef = (value: unknown, logicalId: string): boolean =>
  JSON.stringify(value) === JSON.stringify({ Ref: logicalId });
const isArnOf = (value: unknown, logicalId: string): boolean =>
  JSON.stringify(value) === JSON.stringify({ 'Fn::GetAtt': [logicalId, 'Arn'] });
const grants = (statement: Statement, action: string) => asArray(statement.Action).includes(action);

/** The full path of an API Gateway resource, rebuilt from its PathPart/ParentId chain. */
function resourcePath(logicalId: string): string {
  const resource = resources[logicalId]!;
  const parent = resource.Properties.ParentId as { Ref?: string };
  const prefix = parent.Ref === undefined ? '' : resourcePath(parent.Ref);
  return `${prefix}/${resource.Properties.PathPart as string}`;
}

describe('the service stack', () => {
  it('makes one function per distinct entry of the route table', () => {
    expect(serviceFunctions()).toHaveLength(new Set(routes.map((r) => r.entry)).size);
    for (const entry of entries) functionIdOf(entry);
  });

  it('runs every function on ARM64 and Node.js 24, traced, with source maps and its own log group and role', () => {
    for (const [id, fn] of serviceFunctions()) {
      expect(fn.Properties, id).toMatchObject({
        Architectures: ['arm64'],
        Runtime: 'nodejs24.x',
        TracingConfig: { Mode: 'Active' },
        Environment: {
          Variables: expect.objectContaining({ NODE_OPTIONS: '--enable-source-maps' }),
        },
        LoggingConfig: { LogGroup: { Ref: expect.any(String) } },
      });
    }
    for (const entry of entries) {
      const logGroup = (functionOf(entry).Properties.LoggingConfig as { LogGroup: { Ref: string } })
        .LogGroup.Ref;
      expect(resources[logGroup]!.Properties.RetentionInDays, entry).toBe(30);
      // Its own role, without AWS managed policies (AWSLambdaBasicExecutionRole writes anywhere).
      const role = resources[roleOf(entry)]!;
      expect(role.Properties.ManagedPolicyArns, entry).toBeUndefined();
      const logWrites = statementsOf(entry).filter((s) => grants(s, 'logs:PutLogEvents'));
      expect(
        logWrites.map((s) => s.Resource),
        entry,
      ).toEqual([{ 'Fn::GetAtt': [logGroup, 'Arn'] }]);
    }
  });

  it('serves the API on stage v1', () => {
    template.resourceCountIs('AWS::ApiGateway::Stage', 1);
    template.hasResourceProperties('AWS::ApiGateway::Stage', { StageName: 'v1' });
  });

  it('has a usage plan per tier of client apps, sized for an app, each app’s key in its tier’s plan', () => {
    const plans = new Map(
      ofType('AWS::ApiGateway::UsagePlan').map(([id, plan]) => [
        String(plan.Properties.UsagePlanName).replace('AccountOtpWebhookService-test-', ''),
        { id, properties: plan.Properties },
      ]),
    );
    expect([...plans.keys()].sort()).toEqual(['backend', 'dashboard', 'standard']);
    for (const [tier, { properties }] of plans) {
      const limits = defaultApiTiers.test[tier]!;
      // Per key, that is per app: the handlers still count each user and address within it.
      expect(properties.Throttle, tier).toEqual({
        RateLimit: limits.ratePerSecond,
        BurstLimit: limits.burst,
      });
      expect(properties.Quota, tier).toEqual({ Limit: limits.quotaPerDay, Period: 'DAY' });
    }
    for (const [entry] of entriesOn('api')) {
      expect(environmentOf(entry).RATE_LIMIT_MODE, entry).toBe('test');
    }
    const keys = ofType('AWS::ApiGateway::ApiKey');
    expect(keys.map(([, key]) => key.Properties.Name).sort()).toEqual([
      'AccountOtpWebhookService-test-dashboard',
      'AccountOtpWebhookService-test-example-app',
    ]);
    const keyOf = (suffix: string) =>
      keys.find(([, key]) => String(key.Properties.Name).endsWith(suffix))![0];
    // The client app (no tier named: standard) in the standard plan, the dashboard in its own.
    expect(
      ofType('AWS::ApiGateway::UsagePlanKey')
        .map(([, link]) => [link.Properties.KeyId, link.Properties.UsagePlanId])
        .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
    ).toEqual(
      [
        [{ Ref: keyOf('example-app') }, { Ref: plans.get('standard')!.id }],
        [{ Ref: keyOf('dashboard') }, { Ref: plans.get('dashboard')!.id }],
      ].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
    );
    expect(template.toJSON().Outputs.ExampleAppApiKeyId.Value).toEqual({
      Ref: keyOf('example-app'),
    });
  });

  it('takes each tier’s rate, burst and quota from cdk.json, and an app’s tier from its name', () => {
    const configured = synth({
      apiClients: 'web-app,partner:gold',
      apiTiers: { gold: { ratePerSecond: 800, burst: 1600 } },
    });
    configured.hasResourceProperties('AWS::ApiGateway::UsagePlan', {
      UsagePlanName: 'AccountOtpWebhookService-test-gold',
      Throttle: { RateLimit: 800, BurstLimit: 1600 },
      Quota: Match.absent(),
    });
    configured.hasResourceProperties('AWS::ApiGateway::ApiKey', {
      Name: 'AccountOtpWebhookService-test-partner',
      Description: 'Client app partner (gold tier)',
    });
    expect(() => synth({ apiClients: 'web-app:platinum' })).toThrow(/tier platinum/);
    expect(() => synth({ apiTiers: { gold: { ratePerSecond: 0, burst: 1 } } })).toThrow(
      /apiTiers\.gold\.ratePerSecond/,
    );
  });

  it('puts every api route on its own method with the right authorisation and function', () => {
    const methods = ofType('AWS::ApiGateway::Method').map(([, method]) => method.Properties);
    expect(methods).toHaveLength(apiRoutes.length);
    for (const route of apiRoutes) {
      const method = methods.find(
        (m) =>
          m.HttpMethod === route.method &&
          resourcePath((m.ResourceId as { Ref: string }).Ref) === route.path,
      );
      expect(method, `${route.method} ${route.path}`).toBeDefined();
      expect(method!.AuthorizationType).toBe(route.auth === 'iam' ? 'AWS_IAM' : 'NONE');
      expect(method!.ApiKeyRequired).toBe(true);
      const integration = method!.Integration as { Type: string; Uri: unknown };
      expect(integration.Type).toBe('AWS_PROXY');
      expect(namesAlias(integration.Uri, route.entry), route.name).toBe(true);
    }
    expect(apiRoutes.some((route) => route.auth === 'iam')).toBe(true);
  });

  it('answers the gateway’s own errors in the envelope, with its request id and Retry-After at a limit', () => {
    const responses = ofType('AWS::ApiGateway::GatewayResponse').map(([, r]) => r.Properties);
    // type → status, error code, Retry-After (seconds) where a limit refused, and the message
    // when the gateway's own wording would not do (a 5xx never carries internals).
    const expected: Record<string, [string, string, string?, string?]> = {
      MISSING_AUTHENTICATION_TOKEN: ['404', 'not_found', undefined, 'No route matches'],
      RESOURCE_NOT_FOUND: ['404', 'not_found'],
      INVALID_SIGNATURE: ['401', 'unauthorized'],
      EXPIRED_TOKEN: ['401', 'unauthorized'],
      ACCESS_DENIED: ['403', 'forbidden'],
      INVALID_API_KEY: ['403', 'forbidden', undefined, 'x-api-key'],
      WAF_FILTERED: ['403', 'forbidden', undefined, 'firewall'],
      THROTTLED: ['429', 'rate_limited', '1', 'usage plan'],
      QUOTA_EXCEEDED: ['429', 'rate_limited', '3600', 'daily quota'],
      REQUEST_TOO_LARGE: ['413', 'payload_too_large'],
      UNSUPPORTED_MEDIA_TYPE: ['400', 'invalid_request'],
      DEFAULT_4XX: ['400', 'invalid_request'],
      DEFAULT_5XX: ['500', 'internal_error', undefined, 'Internal server error'],
    };
    expect(responses.map((r) => r.ResponseType).sort()).toEqual(Object.keys(expected).sort());
    for (const [type, [status, code, retryAfter, message]] of Object.entries(expected)) {
      const response = responses.find((r) => r.ResponseType === type)!;
      expect(response.StatusCode, type).toBe(status);
      expect(response.ResponseParameters, type).toEqual({
        'gatewayresponse.header.Content-Type': "'application/json'",
        // The id API Gateway gave the request, as its access log records it.
        'gatewayresponse.header.X-Request-Id': 'context.requestId',
        'gatewayresponse.header.Cache-Control': "'no-store'",
        ...(retryAfter === undefined
          ? {}
          : { 'gatewayresponse.header.Retry-After': `'${retryAfter}'` }),
      });
      const body = (response.ResponseTemplates as Record<string, string>)['application/json']!;
      if (message === undefined) {
        // The gateway substitutes its own message, a quoted JSON string, for the variable.
        expect(body, type).toContain('$context.error.messageString');
      } else {
        expect(body, type).not.toContain('$context');
      }
      const parsed = JSON.parse(body.replace('$context.error.messageString', '"message"'));
      expect(parsed, type).toEqual({
        success: false,
        error: {
          code,
          message: message === undefined ? 'message' : expect.stringContaining(message),
          details: [],
        },
      });
    }
  });

  it('gives each receiver a public Function URL, a reserved concurrency and an output', () => {
    const receivers = entriesOn('function-url');
    expect(receivers.length).toBeGreaterThan(0);
    template.resourceCountIs('AWS::Lambda::Url', receivers.length);
    const outputs = template.toJSON().Outputs as Record<string, { Value: unknown }>;
    for (const [entry] of receivers) {
      const id = functionIdOf(entry);
      const [urlId, url] = ofType('AWS::Lambda::Url').find(([, u]) =>
        isArnOf(u.Properties.TargetFunctionArn, id),
      )!;
      expect(url.Properties.AuthType).toBe('NONE');
      // The URL serves the live alias, which a deploy moves, never $LATEST.
      expect(url.Properties.Qualifier).toBe('live');
      aliasIdOf(entry);
      expect(functionOf(entry).Properties.ReservedConcurrentExecutions).toBe(10);
      expect(outputs[`${constructIdOf(entry)}Url`]?.Value).toEqual({
        'Fn::GetAtt': [urlId, 'FunctionUrl'],
      });
    }
    expect(outputs.ApiUrl).toBeDefined();
  });

  it('projects no index ALL unless its definition says why', () => {
    const tables = template.findResources('AWS::DynamoDB::Table');
    const indexes = Object.values(tables).flatMap(
      (table) =>
        (table.Properties.GlobalSecondaryIndexes ?? []) as {
          IndexName: string;
          Projection: { ProjectionType: string };
        }[],
    );
    expect(indexes.length).toBeGreaterThan(0);
    for (const index of indexes) {
      if (index.Projection.ProjectionType !== 'ALL') continue;
      const definition = tableIndexes.find(
        (candidate) => candidate.indexName === index.IndexName,
      ) as { projection: { allBecause?: string } } | undefined;
      expect(definition?.projection.allBecause, index.IndexName).toMatch(/\w{3,}/);
    }
  });

  it('builds the table from the shared definition: keys, indexes, TTL, PITR, retained', () => {
    const stringKey = (name: string) => ({ AttributeName: name, AttributeType: 'S' });
    template.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: {
        BillingMode: 'PAY_PER_REQUEST',
        KeySchema: [
          { AttributeName: tableKeys.partitionKey, KeyType: 'HASH' },
          { AttributeName: tableKeys.sortKey, KeyType: 'RANGE' },
        ],
        AttributeDefinitions: Match.arrayWith(
          [
            tableKeys.partitionKey,
            tableKeys.sortKey,
            ...tableIndexes.flatMap((index) => [index.partitionKey, index.sortKey]),
          ].map(stringKey),
        ),
        GlobalSecondaryIndexes: tableIndexes.map((index) => ({
          IndexName: index.indexName,
          KeySchema: [
            { AttributeName: index.partitionKey, KeyType: 'HASH' },
            { AttributeName: index.sortKey, KeyType: 'RANGE' },
          ],
          Projection:
            index.projection.type === 'INCLUDE'
              ? { ProjectionType: 'INCLUDE', NonKeyAttributes: [...index.projection.attributes] }
              : { ProjectionType: index.projection.type },
        })),
        TimeToLiveSpecification: { AttributeName: ttlAttribute, Enabled: true },
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      },
    });
  });

  describe('queue workers', () => {
    const workers = entriesOn('queue');

    it('exist for the delivery, the inbound and the account-code queue', () => {
      expect(
        workers.flatMap(([, shared]) => shared.map((r) => r.surface === 'queue' && r.queue)),
      ).toEqual(expect.arrayContaining(['delivery', 'inbound', 'accountCode']));
    });

    it('each consume a queue with a dead-letter queue, batch item failures and a concurrency cap', () => {
      for (const [entry] of workers) {
        const mapping = mappingOf(entry)?.[1].Properties;
        expect(mapping, entry).toBeDefined();
        expect(mapping!.FunctionResponseTypes).toEqual(['ReportBatchItemFailures']);
        expect(
          (mapping!.ScalingConfig as { MaximumConcurrency: number }).MaximumConcurrency,
        ).toBeGreaterThanOrEqual(2);

        const queueId = (mapping!.EventSourceArn as { 'Fn::GetAtt': [string, string] })[
          'Fn::GetAtt'
        ][0];
        const queue = resources[queueId]!.Properties;
        const redrive = queue.RedrivePolicy as {
          deadLetterTargetArn: unknown;
          maxReceiveCount: number;
        };
        const deadLetterId = (redrive.deadLetterTargetArn as { 'Fn::GetAtt': [string, string] })[
          'Fn::GetAtt'
        ][0];
        expect(resources[deadLetterId]!.Type).toBe('AWS::SQS::Queue');
        expect(redrive.maxReceiveCount).toBeGreaterThan(1);

        // AWS's advice for SQS event sources: visibility ≥ 6× the function's timeout.
        const timeout = functionOf(entry).Properties.Timeout as number;
        expect(queue.VisibilityTimeout as number).toBeGreaterThanOrEqual(6 * timeout);
      }
    });
  });

  it('has a schedule group and a role that lets only the scheduler send to the delivery queue', () => {
    template.resourceCountIs('AWS::Scheduler::ScheduleGroup', 1);
    const [deliveryEntry] = entriesOn('queue').find(([, shared]) =>
      shared.some((r) => r.surface === 'queue' && r.queue === 'delivery'),
    )!;
    const deliveryQueueArn = mappingOf(deliveryEntry)![1].Properties.EventSourceArn;

    const [roleId] = ofType('AWS::IAM::Role').find(([, role]) =>
      JSON.stringify(role.Properties.AssumeRolePolicyDocument).includes('scheduler.amazonaws.com'),
    )!;
    const statements = ofType('AWS::IAM::Policy')
      .filter(([, p]) => (p.Properties.Roles as unknown[]).some((r) => isRef(r, roleId)))
      .flatMap(([, p]) => (p.Properties.PolicyDocument as { Statement: Statement[] }).Statement);
    expect(statements).toEqual([
      { Effect: 'Allow', Action: 'sqs:SendMessage', Resource: deliveryQueueArn },
    ]);

    for (const [entry, shared] of routesByEntry(routes)) {
      const binds = mergedNeeds(shared).scheduler === true;
      expect(Object.keys(environmentOf(entry)).includes('SCHEDULER_ROLE_ARN'), entry).toBe(binds);
      const passRole = statementsOf(entry).filter((s) => grants(s, 'iam:PassRole'));
      expect(
        passRole.map((s) => isArnOf(s.Resource, roleId)),
        entry,
      ).toEqual(binds ? [true] : []);
      if (binds) {
        expect(statementsOf(entry)).toContainEqual(
          expect.objectContaining({ Action: 'scheduler:CreateSchedule' }),
        );
      }
    }
  });

  it('lets only SMS-sending functions publish to SNS, and then only to phone numbers', () => {
    for (const [entry, shared] of routesByEntry(routes)) {
      const publish = statementsOf(entry).filter((s) => grants(s, 'sns:Publish'));
      if (mergedNeeds(shared).sms) {
        expect(publish, entry).toEqual([
          { Effect: 'Allow', Action: 'sns:Publish', NotResource: 'arn:aws:sns:*:*:*' },
        ]);
      } else {
        expect(publish, entry).toEqual([]);
      }
    }
    expect(apiRoutes.some((route) => route.needs.sms)).toBe(true);
  });

  it('lets signup, forgotPassword and the resends only queue code work for one worker', () => {
    const entryOf = (name: string) => routes.find((route) => route.name === name)!.entry;
    const queueArn = mappingOf(entryOf('sendAccountCode'))![1].Properties.EventSourceArn as {
      'Fn::GetAtt': [string, string];
    };
    const queueId = queueArn['Fn::GetAtt'][0];
    // A failed send is redelivered after the code's 60 s cooldown, so the retry is not absorbed.
    expect(resources[queueId]!.Properties.VisibilityTimeout as number).toBeGreaterThan(60);
    const sends = (statement: Statement) =>
      asArray(statement.Action).some((a) => a.startsWith('ses:') || a.startsWith('sns:'));

    for (const name of ['signup', 'forgotPassword', 'resendEmailOtp', 'resendMobileOtp']) {
      const entry = entryOf(name);
      expect(statementsOf(entry).filter(sends), name).toEqual([]);
      expect(statementsOf(entry), name).toContainEqual({
        Effect: 'Allow',
        Action: 'sqs:SendMessage',
        Resource: queueArn,
      });
      expect(environmentOf(entry).ACCOUNT_CODE_QUEUE_URL, name).toEqual({ Ref: queueId });
      // No code is issued on the request path, so no pepper (nor any other secret) is read there.
      expect(
        Object.keys(environmentOf(entry)).filter((n) => n.endsWith('_SECRET_ARN')),
        name,
      ).toEqual([]);
    }
    const workerEntry = entryOf('sendAccountCode');
    expect(
      statementsOf(workerEntry)
        .filter(sends)
        .flatMap((s) => asArray(s.Action)),
    ).toEqual(expect.arrayContaining(['ses:SendEmail', 'sns:Publish']));
    expect(environmentOf(workerEntry)).toHaveProperty('OTP_PEPPER_SECRET_ARN');
    // Only the functions that queue code work know the queue.
    for (const [entry, shared] of routesByEntry(routes)) {
      expect('ACCOUNT_CODE_QUEUE_URL' in environmentOf(entry), entry).toBe(
        mergedNeeds(shared).accountCodeQueue === true,
      );
    }
  });

  it('grants each function exactly the secrets its routes need, by ARN', () => {
    const secretIds = ofType('AWS::SecretsManager::Secret').map(([id]) => id);
    for (const [entry, shared] of routesByEntry(routes)) {
      const needed = (mergedNeeds(shared).secrets ?? []).sort();
      const environment = environmentOf(entry);
      const arnVariables = Object.keys(environment).filter((name) => name.endsWith('_SECRET_ARN'));
      expect(arnVariables.map((name) => name.replace(/_SECRET_ARN$/, '')).sort(), entry).toEqual(
        needed,
      );
      const readable = statementsOf(entry)
        .filter((s) => grants(s, 'secretsmanager:GetSecretValue'))
        .map((s) => s.Resource);
      expect(readable.sort(), entry).toEqual(arnVariables.map((name) => environment[name]).sort());
      for (const arn of readable) {
        expect(
          secretIds.some((id) => isRef(arn, id)),
          entry,
        ).toBe(true);
      }
      // The extension that serves the secrets is there exactly when something is read.
      expect((functionOf(entry).Properties.Layers ?? []) as unknown[]).toHaveLength(
        needed.length > 0 ? 1 : 0,
      );
    }
  });

  it('lets only the functions that issue tokens read the private signing seeds', () => {
    // A flaw in any function that only checks tokens (a webhook route, the JWKS) must not hand
    // out the seeds: with them anyone mints an access token for any user.
    const [seedsId] = ofType('AWS::SecretsManager::Secret').find(([, secret]) =>
      String(secret.Properties.Description).startsWith('JWT_SIGNING_KEYS'),
    )!;
    const readers = entries.filter((entry) =>
      statementsOf(entry).some(
        (s) => grants(s, 'secretsmanager:GetSecretValue') && isRef(s.Resource, seedsId),
      ),
    );
    const issuers = [
      'login',
      'refreshToken',
      'verifySignupOtp',
      'verifyOtp',
      'verifyMfa',
      'passkeyLogin',
    ].map((name) => routes.find((route) => route.name === name)!.entry);
    expect(readers.sort()).toEqual(issuers.sort());
  });

  it('reads JWT keys in login but no secret at all in the OpenAPI document', () => {
    const entryOf = (name: string) => routes.find((route) => route.name === name)!.entry;
    expect(environmentOf(entryOf('login'))).toHaveProperty('JWT_SIGNING_KEYS_SECRET_ARN');
    const openapi = entryOf('openapi');
    expect(Object.keys(environmentOf(openapi)).filter((n) => n.includes('SECRET'))).toEqual([]);
    expect(statementsOf(openapi).filter((s) => grants(s, 'secretsmanager:GetSecretValue'))).toEqual(
      [],
    );
  });

  it('keeps secret values out of the template', () => {
    const secretNames = new Set(routes.flatMap((route) => route.needs.secrets ?? []));
    for (const [, secret] of ofType('AWS::SecretsManager::Secret')) {
      expect(secret.Properties.SecretString).toBeUndefined();
      expect(secret.Properties.GenerateSecretString).toMatchObject({ ExcludePunctuation: true });
    }
    for (const entry of entries) {
      for (const name of Object.keys(environmentOf(entry))) {
        expect(secretNames.has(name as never), `${entry} has ${name} in plain`).toBe(false);
      }
    }
  });

  it('lets each function touch only the item families its routes declare (dynamodb:LeadingKeys)', () => {
    const [tableId] = ofType('AWS::DynamoDB::Table')[0]!;
    const tableArn = { 'Fn::GetAtt': [tableId, 'Arn'] };
    for (const [entry, shared] of routesByEntry(routes)) {
      expect(environmentOf(entry)).toHaveProperty('TABLE_NAME');
      const families = itemFamiliesOf(shared);
      const tableStatements = statementsOf(entry).filter((s) =>
        asArray(s.Action).some((action) => action.startsWith('dynamodb:')),
      );
      const expected = [undefined, ...tableIndexes.map((index) => index.indexName)]
        .map((index) => ({
          index,
          patterns: families
            .filter((family) => itemFamilyIndex(family) === index)
            .map(leadingKeyPattern),
        }))
        .filter(({ patterns }) => patterns.length > 0)
        .map(({ index, patterns }) => ({
          Effect: 'Allow',
          Action:
            index === undefined
              ? [
                  'dynamodb:GetItem',
                  'dynamodb:BatchGetItem',
                  'dynamodb:Query',
                  'dynamodb:PutItem',
                  'dynamodb:UpdateItem',
                  'dynamodb:DeleteItem',
                  'dynamodb:BatchWriteItem',
                  'dynamodb:ConditionCheckItem',
                ]
              : 'dynamodb:Query',
          Resource:
            index === undefined ? tableArn : { 'Fn::Join': ['', [tableArn, `/index/${index}`]] },
          Condition: {
            'ForAllValues:StringLike': {
              'dynamodb:LeadingKeys': patterns,
            },
          },
        }));
      // What it may only read: the published token keys, for a function that checks tokens.
      const readOnly = readOnlyFamiliesOf(shared);
      const reads =
        readOnly.length === 0
          ? []
          : [
              {
                Effect: 'Allow',
                Action: ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query'],
                Resource: tableArn,
                Condition: {
                  'ForAllValues:StringLike': {
                    'dynamodb:LeadingKeys': readOnly.map(leadingKeyPattern),
                  },
                },
              },
            ];
      expect(tableStatements, entry).toEqual([...expected, ...reads]);
    }
    // The public receivers and the JWKS never reach accounts, sessions or webhook secrets.
    for (const name of ['handleGatewayBWebhook', 'jwks', 'listEventTypes', 'openapi']) {
      const route = routes.find((candidate) => candidate.name === name)!;
      const patterns = JSON.stringify(statementsOf(route.entry));
      for (const secretHolding of ['USER#*', 'ACCOUNT#*', 'REFRESH#*']) {
        expect(patterns, name).not.toContain(secretHolding);
      }
    }
  });

  it('runs each sweeper (deliveries, inbound events) every five minutes', () => {
    const sweepers = entriesOn('schedule');
    expect(sweepers.flatMap(([, shared]) => shared.map((route) => route.name)).sort()).toEqual([
      'sweepDeliveries',
      'sweepInboundEvents',
    ]);
    template.resourceCountIs('AWS::Events::Rule', sweepers.length);
    for (const [entry] of sweepers) {
      template.hasResourceProperties('AWS::Events::Rule', {
        ScheduleExpression: 'rate(5 minutes)',
        Targets: [Match.objectLike({ Arn: { Ref: aliasIdOf(entry) } })],
      });
    }
  });

  it('lets the inbound sweeper send to the inbound queue and to nothing else', () => {
    const entryOf = (name: string) => routes.find((route) => route.name === name)!.entry;
    const [, inboundMapping] = mappingOf(entryOf('processInboundEvent'))!;
    const sweeper = entryOf('sweepInboundEvents');
    const sends = statementsOf(sweeper).filter((s) =>
      asArray(s.Action).some((action) => action.startsWith('sqs:')),
    );
    expect(sends).toEqual([
      {
        Effect: 'Allow',
        Action: 'sqs:SendMessage',
        Resource: inboundMapping.Properties.EventSourceArn,
      },
    ]);
    expect(
      Object.keys(environmentOf(sweeper)).filter((name) => name.endsWith('_QUEUE_URL')),
    ).toEqual(['INBOUND_QUEUE_URL']);
  });

  it('alarms on dead letters, API 5xx and worker and sweeper errors', () => {
    const alarms = ofType('AWS::CloudWatch::Alarm').map(([, alarm]) => alarm.Properties);
    const deadLetterAlarms = alarms.filter(
      (a) => a.MetricName === 'ApproximateNumberOfMessagesVisible' && a.Namespace === 'AWS/SQS',
    );
    expect(deadLetterAlarms).toHaveLength(3);
    for (const alarm of deadLetterAlarms) {
      expect(alarm).toMatchObject({ Threshold: 0, ComparisonOperator: 'GreaterThanThreshold' });
    }
    expect(
      alarms.filter((a) => a.MetricName === '5XXError' && a.Namespace === 'AWS/ApiGateway'),
    ).toHaveLength(1);
    const workers = [...entriesOn('queue'), ...entriesOn('schedule')];
    expect(workers.length).toBeGreaterThan(entriesOn('queue').length);
    for (const [entry] of workers) {
      const errorAlarms = alarms.filter(
        (a) =>
          a.MetricName === 'Errors' &&
          a.Namespace === 'AWS/Lambda' &&
          JSON.stringify(a.Dimensions).includes(`"Ref":"${functionIdOf(entry)}"`),
      );
      expect(errorAlarms, entry).toHaveLength(1);
      expect(errorAlarms[0], entry).toMatchObject({
        Statistic: 'Sum',
        Period: 300,
        Threshold: 0,
        ComparisonOperator: 'GreaterThanThreshold',
        TreatMissingData: 'notBreaching',
        AlarmActions: [{ Ref: ofType('AWS::SNS::Topic')[0]![0] }],
      });
    }
  });

  it('counts abandoned inbound events from the inbound sweeper’s log and alarms on the first', () => {
    const sweeper = routes.find((route) => route.name === 'sweepInboundEvents')!.entry;
    const logGroupRef = functionOf(sweeper).Properties.LoggingConfig as { LogGroup: unknown };
    const filters = ofType('AWS::Logs::MetricFilter')
      .map(([, filter]) => filter.Properties)
      .filter((filter) => JSON.stringify(filter).includes('InboundEventsAbandoned'));
    expect(filters).toEqual([
      {
        LogGroupName: logGroupRef.LogGroup,
        // shared/log.ts writes one JSON object a line, the text in its `message` field.
        FilterPattern: '{ $.message = "inbound event abandoned after repeated sweeps" }',
        MetricTransformations: [
          {
            MetricNamespace: 'AccountOtpWebhookService-test',
            MetricName: 'InboundEventsAbandoned',
            MetricValue: '1',
          },
        ],
      },
    ]);
    const alarms = ofType('AWS::CloudWatch::Alarm').map(([, alarm]) => alarm.Properties);
    expect(
      alarms.filter(
        (a) =>
          a.MetricName === 'InboundEventsAbandoned' &&
          a.Namespace === 'AccountOtpWebhookService-test',
      ),
    ).toEqual([
      expect.objectContaining({
        Statistic: 'Sum',
        Period: 300,
        Threshold: 0,
        ComparisonOperator: 'GreaterThanThreshold',
        TreatMissingData: 'notBreaching',
        AlarmActions: [{ Ref: ofType('AWS::SNS::Topic')[0]![0] }],
      }),
    ]);
  });
});

describe('the stack’s context values', () => {
  it('sets the sender, SMS and rate-limit settings and the receivers’ concurrency', () => {
    const configured = synth({
      emailFrom: 'accounts@mail.example.org',
      smsSenderId: 'Acme',
      smsAllowedCountries: 'in, us',
      rateLimitMode: 'production',
      receiverReservedConcurrency: '3',
      alarmEmail: 'oncall@example.org',
    });
    configured.hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: Match.objectLike({
          SMS_SENDER_ID: 'Acme',
          SMS_ALLOWED_COUNTRIES: 'IN,US',
          RATE_LIMIT_MODE: 'production',
        }),
      },
    });
    configured.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Condition: { StringEquals: { 'ses:FromAddress': 'accounts@mail.example.org' } },
          }),
        ]),
      },
    });
    configured.hasResourceProperties('AWS::Lambda::Function', { ReservedConcurrentExecutions: 3 });
    // resendMobileOtp checks the allow-list before queueing, without any right to text.
    configured.hasResourceProperties('AWS::Lambda::Function', {
      Description: 'Send a new SMS verification code',
      Environment: { Variables: Match.objectLike({ SMS_ALLOWED_COUNTRIES: 'IN,US' }) },
    });
    configured.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'oncall@example.org',
    });
  });

  it('lets the webhook routes that put deliveries on their way send to the delivery queue, and no others', () => {
    const deliveryQueueArn = statementsOf(
      routes.find((route) => route.name === 'publishEvent')!.entry,
    ).find((statement) => grants(statement, 'sqs:SendMessage'))?.Resource;
    // Enabling an endpoint sends what waited, recovery re-queues: on AWS both need the queue.
    for (const name of ['updateWebhook', 'recoverWebhook', 'retryWebhookDelivery']) {
      const { entry } = routes.find((route) => route.name === name)!;
      expect(environmentOf(entry), name).toHaveProperty('DELIVERY_QUEUE_URL');
      expect(statementsOf(entry), name).toContainEqual({
        Effect: 'Allow',
        Action: 'sqs:SendMessage',
        Resource: deliveryQueueArn,
      });
    }
    for (const name of ['getWebhookDelivery', 'listEventTypes']) {
      const { entry } = routes.find((route) => route.name === name)!;
      expect(environmentOf(entry), name).not.toHaveProperty('DELIVERY_QUEUE_URL');
    }
    // The event catalogue is public: its function holds no secret.
    const catalogue = routes.find((route) => route.name === 'listEventTypes')!.entry;
    expect(
      Object.keys(environmentOf(catalogue)).filter((name) => name.endsWith('_SECRET_ARN')),
    ).toEqual([]);
  });

  it('refuses a malformed value at synth time', () => {
    expect(() => synth({ rateLimitMode: 'fast' })).toThrow(/rateLimitMode/);
    expect(() => synth({ emailFrom: 'not an address' })).toThrow(/emailFrom/);
    expect(() => synth({ architecture: 'sparc' })).toThrow(/architecture/);
  });
});

/** A template value with its Refs and Joins written out, for comparing addresses. */
function rendered(value: unknown): string {
  if (typeof value === 'string') return value;
  const object = value as Record<string, unknown>;
  if ('Ref' in object) return `<${String(object.Ref)}>`;
  if ('Fn::Join' in object) {
    const [separator, parts] = object['Fn::Join'] as [string, unknown[]];
    return parts.map(rendered).join(separator);
  }
  return JSON.stringify(value);
}

describe('tokens, addresses, logs and the web ACL', () => {
  const restApiId = () => ofType('AWS::ApiGateway::RestApi')[0]![0];
  const stageUrl = () => `https://<${restApiId()}>.execute-api.<AWS::Region>.<AWS::URLSuffix>/v1`;

  it('tells every function that signs or checks tokens their issuer and audience', () => {
    for (const [entry, shared] of routesByEntry(routes)) {
      const environment = environmentOf(entry);
      const { items = [], reads = [] } = mergedNeeds(shared);
      if ([...items, ...reads].includes('accessTokenKeys')) {
        // Without a custom domain both hosts are the stage's own address.
        expect(rendered(environment.JWT_ISSUER), entry).toBe(stageUrl());
        expect(rendered(environment.JWT_AUDIENCE), entry).toBe(stageUrl());
      } else {
        expect(environment, entry).not.toHaveProperty('JWT_ISSUER');
      }
    }
    const openapi = routes.find((route) => route.name === 'openapi')!.entry;
    expect(rendered(environmentOf(openapi).PUBLIC_BASE_URLS)).toBe(stageUrl());
  });

  it('logs access and method errors (never bodies), traces the stage and guards it with a web ACL', () => {
    const [stageId, stage] = ofType('AWS::ApiGateway::Stage')[0]!;
    expect(stage.Properties).toMatchObject({
      StageName: 'v1',
      TracingEnabled: true,
      MethodSettings: [
        {
          HttpMethod: '*',
          ResourcePath: '/*',
          LoggingLevel: 'ERROR',
          DataTraceEnabled: false,
        },
      ],
    });
    const accessLog = stage.Properties.AccessLogSetting as {
      DestinationArn: unknown;
      Format: string;
    };
    expect(JSON.parse(accessLog.Format)).toMatchObject({
      apiKeyId: '$context.identity.apiKeyId',
      sourceIp: '$context.identity.sourceIp',
      status: '$context.status',
    });
    template.resourceCountIs('AWS::ApiGateway::Account', 1);

    const [aclId, acl] = ofType('AWS::WAFv2::WebACL')[0]!;
    template.hasResourceProperties('AWS::WAFv2::WebACLAssociation', {
      WebACLArn: { 'Fn::GetAtt': [aclId, 'Arn'] },
      ResourceArn: Match.objectLike({ 'Fn::Join': ['', Match.arrayWith([{ Ref: stageId }])] }),
    });
    const rules = acl.Properties.Rules as {
      Name: string;
      Statement: Record<string, Record<string, unknown>>;
      Action?: unknown;
    }[];
    expect(rules.map((rule) => rule.Name)).toEqual([
      'RequestsPerSourceAddress',
      'RequestsPerDashboardViewer',
      'EventPublicationsPerSourceAddress',
      'AWSManagedRulesAmazonIpReputationList',
      'AWSManagedRulesCommonRuleSet',
    ]);
    expect(rules[0]!.Statement.RateBasedStatement).toMatchObject({
      Limit: 10 * 100,
      AggregateKeyType: 'IP',
    });
    // Over the limit: 429 in the envelope, as the handlers answer it.
    expect(JSON.stringify(rules[0]!.Action)).toContain('"ResponseCode":429');
    const body = (acl.Properties.CustomResponseBodies as Record<string, { Content: string }>)
      .rateLimited!.Content;
    expect(JSON.parse(body)).toMatchObject({ success: false, error: { code: 'rate_limited' } });
  });

  it('counts a publishing backend’s signed events apart, at a backend’s rate, in the web ACL and the handler', () => {
    // A backend publishes from a few addresses at hundreds a second: under the per-user figures
    // (33/s an address, 1,000 a minute a key and address) it would be refused within seconds.
    const [, acl] = ofType('AWS::WAFv2::WebACL')[0]!;
    const rules = acl.Properties.Rules as {
      Name: string;
      Statement: { RateBasedStatement: Record<string, unknown> };
    }[];
    const signedPublication = {
      AndStatement: {
        Statements: [
          expect.objectContaining({
            ByteMatchStatement: expect.objectContaining({
              FieldToMatch: { Method: {} },
              SearchString: 'POST',
            }),
          }),
          expect.objectContaining({
            ByteMatchStatement: expect.objectContaining({
              FieldToMatch: { UriPath: {} },
              SearchString: '/v1/events',
            }),
          }),
          expect.objectContaining({
            ByteMatchStatement: expect.objectContaining({
              FieldToMatch: { SingleHeader: { Name: 'authorization' } },
              PositionalConstraint: 'STARTS_WITH',
              SearchString: 'AWS4-HMAC-SHA256 ',
            }),
          }),
        ],
      },
    };
    const byName = (name: string) => rules.find((rule) => rule.Name === name)!;
    expect(byName('EventPublicationsPerSourceAddress').Statement.RateBasedStatement).toEqual({
      Limit: 300 * 50,
      EvaluationWindowSec: 300,
      AggregateKeyType: 'IP',
      ScopeDownStatement: signedPublication,
    });
    expect(
      byName('RequestsPerSourceAddress').Statement.RateBasedStatement.ScopeDownStatement,
    ).toEqual({
      NotStatement: {
        Statement: { OrStatement: { Statements: [expect.anything(), signedPublication] } },
      },
    });
    const publish = routes.find((route) => route.name === 'publishEvent')!.entry;
    expect(environmentOf(publish).RATE_LIMIT_PER_MINUTE).toBe(String(60 * 50));
    for (const [entry] of entriesOn('api').filter(([other]) => other !== publish)) {
      expect(environmentOf(entry), entry).not.toHaveProperty('RATE_LIMIT_PER_MINUTE');
    }
  });

  it('lets the alarm topic be published to only over TLS', () => {
    const [topicId] = ofType('AWS::SNS::Topic')[0]!;
    template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      Topics: [{ Ref: topicId }],
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: 'Deny',
            Condition: { Bool: { 'aws:SecureTransport': 'false' } },
          }),
        ]),
      },
    });
  });

  it('caps SMS per stage: the allow-list, the hourly cap, its generic share and the per-account generic caps on every texting function, alarms at 80 % and at the cap', () => {
    for (const [entry, shared] of routesByEntry(routes)) {
      const needs = mergedNeeds(shared);
      const environment = environmentOf(entry);
      if (needs.sms || needs.smsAllowList) {
        expect(environment.SMS_ALLOWED_COUNTRIES, entry).toBe('US,GB');
      }
      expect(environment.SMS_MAX_PER_HOUR, entry).toBe(needs.sms ? '50' : undefined);
      // The share kept for sign-in texts and one account's generic codes, at their defaults.
      expect(environment.SMS_RESERVED_PERCENT, entry).toBe(needs.sms ? '10' : undefined);
      expect(environment.GENERIC_SMS_NUMBERS_PER_HOUR, entry).toBe(needs.sms ? '5' : undefined);
      expect(environment.GENERIC_SMS_PER_DAY, entry).toBe(needs.sms ? '20' : undefined);
    }
    // The texting functions' own log lines, counted into the stage's namespace.
    const texting = [...routesByEntry(routes)]
      .filter(([, shared]) => mergedNeeds(shared).sms)
      .map(
        ([entry]) => (functionOf(entry).Properties.LoggingConfig as { LogGroup: unknown }).LogGroup,
      );
    expect(texting.length).toBeGreaterThan(0);
    const filters = ofType('AWS::Logs::MetricFilter').map(([, filter]) => filter.Properties);
    for (const [metricName, message] of [
      ['SmsCapNear', smsCapNearMessage],
      ['SmsCapReached', smsCapReachedMessage],
    ]) {
      const counting = filters.filter(
        (filter) =>
          (filter.MetricTransformations as { MetricName: string }[])[0]!.MetricName === metricName,
      );
      const byJson = (a: unknown, b: unknown) => JSON.stringify(a).localeCompare(JSON.stringify(b));
      expect(counting.map((filter) => filter.LogGroupName).sort(byJson)).toEqual(
        [...texting].sort(byJson),
      );
      for (const filter of counting) {
        expect(filter.FilterPattern).toBe(`{ $.message = "${message}" }`);
      }
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Namespace: 'AccountOtpWebhookService-test',
        MetricName: metricName,
        Threshold: 0,
        ComparisonOperator: 'GreaterThanThreshold',
        AlarmActions: [{ Ref: ofType('AWS::SNS::Topic')[0]![0] }],
      });
    }
  });
});

describe('stages', () => {
  it('deploys each stage as its own stacks: names, plans and client keys', () => {
    const production = synthStage({ stage: 'production', apiClients: 'ios-app,web-app' });
    expect(Object.keys(production.templates).sort()).toEqual(
      [
        'data',
        'api',
        'dashboard',
        'accounts',
        'passkeys',
        'otp',
        'webhooks',
        'inbound',
        'edge',
        'operations',
      ]
        .map((part) => `AccountOtpWebhookService-production-${part}`)
        .sort(),
    );
    const { template: merged } = production;
    merged.hasResourceProperties('AWS::ApiGateway::UsagePlan', {
      UsagePlanName: 'AccountOtpWebhookService-production-standard',
      Throttle: {
        RateLimit: defaultApiTiers.production.standard!.ratePerSecond,
        BurstLimit: defaultApiTiers.production.standard!.burst,
      },
    });
    // The two client apps' keys and the dashboard's.
    merged.resourceCountIs('AWS::ApiGateway::UsagePlanKey', 3);
    merged.hasResourceProperties('AWS::ApiGateway::ApiKey', {
      Name: 'AccountOtpWebhookService-production-ios-app',
    });
    merged.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ RATE_LIMIT_MODE: 'production' }) },
    });
    // The fixed physical names follow the stage's name.
    merged.hasResourceProperties('AWS::Scheduler::ScheduleGroup', {
      Name: 'AccountOtpWebhookService-production-deliveries',
    });
  });

  it('refuses a stage cdk.json does not declare, and a stage without its SMS limits', () => {
    expect(() => synth({ stage: 'staging' })).toThrow(/stages\.staging is missing/);
    const { smsAllowedCountries: _countries, ...withoutCountries } = (
      checkedInContext.stages as Record<string, Record<string, unknown>>
    ).test!;
    expect(() => synth({ stages: { test: withoutCountries } })).toThrow(/smsAllowedCountries/);
    expect(() => synth({ apiClients: 'Web App' })).toThrow(/apiClients/);
  });
});

describe('custom domains', () => {
  it('maps v1 of both hosts to the stage, issues certificates in the zone, names both in tokens and the OpenAPI servers, and tells the API functions which host serves what', () => {
    const withDomains = synth({
      accountsDomainName: 'accounts.example.com',
      apiDomainName: 'api.example.com',
      hostedZoneId: 'Z0123456789ABCDEFGHIJ',
      hostedZoneName: 'example.com',
    });
    const domains = withDomains.findResources('AWS::ApiGateway::DomainName');
    expect(
      Object.values(domains).map((domain) => (domain as Resource).Properties.DomainName),
    ).toEqual(['accounts.example.com', 'api.example.com']);
    withDomains.resourceCountIs('AWS::ApiGateway::BasePathMapping', 2);
    withDomains.allResourcesProperties('AWS::ApiGateway::BasePathMapping', { BasePath: 'v1' });
    withDomains.resourceCountIs('AWS::CertificateManager::Certificate', 2);
    withDomains.resourceCountIs('AWS::Route53::RecordSet', 2);
    withDomains.allResourcesProperties('AWS::ApiGateway::DomainName', {
      SecurityPolicy: 'TLS_1_2',
      EndpointConfiguration: { Types: ['REGIONAL'] },
    });
    const login = withDomains.toJSON().Resources[
      Object.keys(withDomains.toJSON().Resources).find((id) => /^AuthLogin[0-9A-F]{8}$/.test(id))!
    ] as Resource;
    expect(login.Properties.Environment?.Variables).toMatchObject({
      JWT_ISSUER: 'https://accounts.example.com/v1',
      JWT_AUDIENCE: 'https://api.example.com/v1',
      PUBLIC_BASE_URLS: 'https://accounts.example.com/v1,https://api.example.com/v1',
    });
    // Each custom domain serves its own host's operations only: every API function is told both
    // domains (the handler answers 404 for an operation of the other host), and no other function.
    const variablesOf = (template: Template) =>
      Object.values(template.findResources('AWS::Lambda::Function')).map(
        (fn) => (fn as Resource).Properties.Environment?.Variables ?? {},
      );
    const apiFunctions = variablesOf(withDomains).filter((v) => 'RATE_LIMIT_MODE' in v);
    expect(apiFunctions.length).toBe(new Set(apiRoutes.map((route) => route.entry)).size);
    for (const variables of apiFunctions) {
      expect(variables).toMatchObject({
        ACCOUNTS_DOMAIN_NAME: 'accounts.example.com',
        API_DOMAIN_NAME: 'api.example.com',
      });
    }
    for (const variables of variablesOf(withDomains).filter((v) => !('RATE_LIMIT_MODE' in v))) {
      expect(variables).not.toHaveProperty('ACCOUNTS_DOMAIN_NAME');
    }
    // Without custom domains the stage's address serves every operation.
    for (const variables of variablesOf(template)) {
      expect(variables).not.toHaveProperty('ACCOUNTS_DOMAIN_NAME');
      expect(variables).not.toHaveProperty('API_DOMAIN_NAME');
    }
    expect(() =>
      synth({
        accountsDomainName: 'api.example.com',
        apiDomainName: 'api.example.com',
        hostedZoneId: 'Z0123456789ABCDEFGHIJ',
        hostedZoneName: 'example.com',
      }),
    ).toThrow(/two hosts/);
  });

  it('takes a certificate ARN instead of a zone, and refuses a domain with neither', () => {
    const withCertificate = synth({
      apiDomainName: 'api.example.com',
      apiCertificateArn: 'arn:aws:acm:eu-west-1:123456789012:certificate/abc-123',
    });
    withCertificate.resourceCountIs('AWS::CertificateManager::Certificate', 0);
    withCertificate.hasResourceProperties('AWS::ApiGateway::DomainName', {
      RegionalCertificateArn: 'arn:aws:acm:eu-west-1:123456789012:certificate/abc-123',
    });
    expect(() => synth({ apiDomainName: 'api.example.com' })).toThrow(/needs a certificate/);
  });
});
