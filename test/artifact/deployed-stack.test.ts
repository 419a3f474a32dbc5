import { spawnSync } from 'node:child_process';
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import {
  CreateTableCommand,
  type CreateTableCommandInput,
  DeleteTableCommand,
  DynamoDBClient,
  QueryCommand,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import type { APIGatewayProxyResult, SQSBatchResponse } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { routes } from '../../functions/routes.js';
import { constructIdOf } from '../../infra/area-stack.js';
import { argon2Bindings } from '../../infra/native-binding.js';
import { stageNameOf } from '../../infra/stack-outputs.js';
import { rateLimitPerMode } from '../../shared/config.js';
import { AwsStandIn } from './aws-stand-in.js';
import { type DeployedFunction, deployedFunctions } from './deployed-functions.js';
import {
  type Caller,
  functionUrlEvent,
  type RestRequest,
  restProxyEvent,
  sqsEvent,
} from './lambda-events.js';
import { LocalDeployment } from './local-deployment.js';
import { type FunctionInstance, startFunction } from './run-function.js';
import { SecretsExtensionStandIn } from './secrets-extension-stand-in.js';
import { type SynthesizedStack, synthesizeStack } from './synthesize-stack.js';

const builtDocument = resolve(import.meta.dirname, '..', '..', 'shared', 'http', 'openapi.json');

/**
 * The stacks `cdk deploy --all` would create, run here: `cdk synth` with the checked-in cdk.json
 * (x86_64, so this machine can run the bundles; the deployed default stays ARM64), read as one
 * template (the references between the stacks resolved to what their producers output), then the
 * synthesized bundles themselves, each in its own process with exactly the environment its
 * template entry gives it, against DynamoDB Local (the table built from the template's definition) and stand-ins
 * for SQS, SES, SNS, Scheduler and the Parameters and Secrets extension that enforce the roles'
 * policies. Nothing of the local runtime is used: what passes here is what AWS would run.
 */

const region = 'us-east-1';
const account = '123456789012';

// Starting 46 bundles, each in a process of its own, took 29 s of the suite's 30 on a loaded
// 2-core machine: the tests that start or drive them all get longer.
vi.setConfig({ testTimeout: 180_000 });

let stack: SynthesizedStack;
let deployment: LocalDeployment;
let functions: DeployedFunction[];
let aws: AwsStandIn;
let extension: SecretsExtensionStandIn;
let overrides: Record<string, string>;
let dynamo: DynamoDBClient;
const instances = new Map<string, FunctionInstance>();

// The synth bundles 46 functions and checks nine stacks: minutes when other test files share the
// cores with it.
beforeAll(async () => {
  stack = await synthesizeStack({ architecture: 'x86_64' });
  const dynamoEndpoint = inject('dynamoEndpoint');
  aws = new AwsStandIn(dynamoEndpoint);
  const awsEndpoint = await aws.start();
  deployment = new LocalDeployment(stack.template, {
    stackName: stageNameOf('test'),
    region,
    account,
    awsEndpoint,
  });
  functions = deployedFunctions(deployment, stack);
  aws.serve(deployment, functions);
  extension = new SecretsExtensionStandIn(deployment, functions);
  overrides = {
    // The one setting the template has that cannot hold here: several test runs share this
    // machine, so the extension cannot own its fixed port 2773.
    PARAMETERS_SECRETS_EXTENSION_HTTP_PORT: String(await extension.start()),
    // The SDK's endpoint override: every AWS call goes to the stand-in.
    AWS_ENDPOINT_URL: awsEndpoint,
  };
  dynamo = new DynamoDBClient({
    endpoint: dynamoEndpoint,
    region,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  for (const tableId of deployment.resourcesOf('AWS::DynamoDB::Table')) {
    const definition = deployment.resolve(deployment.properties(tableId)) as Record<
      string,
      unknown
    >;
    await dynamo.send(
      new CreateTableCommand({
        TableName: deployment.ref(tableId),
        KeySchema: definition.KeySchema,
        AttributeDefinitions: definition.AttributeDefinitions,
        GlobalSecondaryIndexes: definition.GlobalSecondaryIndexes,
        BillingMode: definition.BillingMode,
      } as CreateTableCommandInput),
    );
    const ttl = definition.TimeToLiveSpecification as { AttributeName: string; Enabled: boolean };
    await dynamo.send(
      new UpdateTimeToLiveCommand({
        TableName: deployment.ref(tableId),
        TimeToLiveSpecification: ttl,
      }),
    );
  }
}, 1_200_000);

afterAll(async () => {
  for (const instance of instances.values()) instance.stop();
  for (const tableId of deployment?.resourcesOf('AWS::DynamoDB::Table') ?? []) {
    await dynamo.send(new DeleteTableCommand({ TableName: deployment.ref(tableId) }));
  }
  dynamo?.destroy();
  await Promise.all([aws?.close(), extension?.close(), stack?.remove()]);
});

const resourcesOf = (type: string) =>
  Object.entries(stack.template.Resources).filter(([, resource]) => resource.Type === type);

/** The function the template builds for a route of the route table. */
function functionOf(routeName: string): DeployedFunction {
  const route = routes.find((candidate) => candidate.name === routeName);
  if (route === undefined) throw new Error(`no route ${routeName}`);
  const pattern = new RegExp(`^${constructIdOf(route.entry)}[0-9A-F]{8}$`);
  const found = functions.filter((fn) => pattern.test(fn.logicalId));
  expect(found, routeName).toHaveLength(1);
  return found[0]!;
}

async function instanceOf(fn: DeployedFunction): Promise<FunctionInstance> {
  let instance = instances.get(fn.logicalId);
  if (instance === undefined) {
    instance = await startFunction(fn, region, overrides);
    instances.set(fn.logicalId, instance);
  }
  return instance;
}

/** The API key a client app of this stage sends, as API Gateway reports its caller. */
function clientOfPlan(): { caller: Caller } {
  const [, planKey] = resourcesOf('AWS::ApiGateway::UsagePlanKey').find(
    ([, link]) => (link.Properties!.KeyId as { Ref: string }).Ref !== dashboardKeyId(),
  )!;
  const keyId = (planKey.Properties!.KeyId as { Ref: string }).Ref;
  return {
    caller: {
      apiKey: randomBytes(20).toString('base64url'),
      apiKeyId: deployment.ref(keyId),
      sourceIp: '198.51.100.24',
    },
  };
}

/** The logical id of the key only the dashboard's CloudFront distribution holds. */
const dashboardKeyId = () =>
  resourcesOf('AWS::ApiGateway::ApiKey').find(([, key]) =>
    String(key.Properties!.Name).endsWith('-dashboard'),
  )![0];

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: { success: boolean; data?: Record<string, unknown>; error?: { code: string } };
  /** The body and the function's log lines so far: what a failed expectation should show. */
  story: string;
}

/** A request to an API route, as API Gateway would pass it to the route's function. */
async function call(
  routeName: string,
  request: Omit<RestRequest, 'method' | 'resource'> = {},
  caller: Caller = clientOfPlan().caller,
): Promise<Answer> {
  const route = routes.find((candidate) => candidate.name === routeName)!;
  if (route.surface !== 'api') throw new Error(`${routeName} is not an API route`);
  const instance = await instanceOf(functionOf(routeName));
  const result = await instance.invoke<APIGatewayProxyResult>(
    restProxyEvent(deployment.ref(resourcesOf('AWS::ApiGateway::RestApi')[0]![0]), caller, {
      method: route.method,
      resource: route.path,
      ...request,
    }),
  );
  const headers = Object.fromEntries(
    Object.entries(result.headers ?? {}).map(([name, value]) => [
      name.toLowerCase(),
      String(value),
    ]),
  );
  return {
    status: result.statusCode,
    headers,
    body: JSON.parse(result.body),
    story: `${result.body}\n${instance.logs().split('\n').slice(-20).join('\n')}`,
  };
}

/** The function an event source mapping feeds from this queue (by the queue's ARN). */
function consumerOf(queueArn: string): DeployedFunction {
  const mapping = resourcesOf('AWS::Lambda::EventSourceMapping').find(
    ([, m]) => deployment.resolveString(m.Properties!.EventSourceArn) === queueArn,
  );
  if (mapping === undefined) throw new Error(`nothing consumes ${queueArn}`);
  // A queue invokes the function's live alias: `<name>:live`.
  const [functionRef] = deployment.resolveString(mapping[1].Properties!.FunctionName).split(':');
  return functions.find((fn) => fn.name === functionRef)!;
}

/**
 * Hands the messages sent to a queue so far that SQS would deliver now (not consumed yet, not
 * delayed) to the function the template maps to that queue, as one SQS batch; answers how many
 * there were.
 */
const consumed = new Set<object>();
async function drainQueue(queueRoute: string): Promise<number> {
  const route = routes.find((candidate) => candidate.name === queueRoute)!;
  const worker = functionOf(queueRoute);
  const waiting = aws.messages.filter(
    (message) =>
      !consumed.has(message) &&
      message.delaySeconds === 0 &&
      consumerOf(message.queueArn) === worker,
  );
  expect(waiting.length, `messages for ${route.name}`).toBeGreaterThan(0);
  for (const message of waiting) consumed.add(message);
  const instance = await instanceOf(worker);
  const response = await instance.invoke<SQSBatchResponse>(
    sqsEvent(waiting[0]!.queueArn, region, waiting),
  );
  expect(response, `${queueRoute} answered:\n${instance.logs().slice(-3000)}`).toEqual({
    batchItemFailures: [],
  });
  return waiting.length;
}

function expectNoRefusals(): void {
  expect(aws.refusals, 'calls the roles do not allow').toEqual([]);
  expect(extension.refusals, 'secrets the functions could not read').toEqual([]);
}

describe('the stack cdk deploy would create, from the checked-in cdk.json', () => {
  it('requires an API key on every API method', () => {
    const methods = resourcesOf('AWS::ApiGateway::Method');
    expect(methods.length).toBeGreaterThan(0);
    for (const [id, method] of methods) {
      expect(method.Properties!.ApiKeyRequired, id).toBe(true);
    }
  });

  it('builds every function for the architecture asked for (x86_64 here; ARM64 by default)', () => {
    for (const fn of functions) expect(fn.architecture, fn.logicalId).toBe('x86_64');
  });

  it('puts the architecture’s Argon2 binary beside exactly the bundles that require it', () => {
    const { fileName } = argon2Bindings.x86_64;
    const hashing = functions.filter((fn) =>
      readFileSync(join(fn.assetDirectory, 'index.mjs'), 'utf8').includes(fileName),
    );
    expect(hashing).toContain(functionOf('login'));
    for (const fn of functions) {
      expect(existsSync(join(fn.assetDirectory, fileName)), fn.logicalId).toBe(
        hashing.includes(fn),
      );
    }
  });

  it('loads every bundle with the environment its template entry gives it (Lambda init)', async () => {
    // A bundle that cannot load, or reads a malformed setting at cold start, fails here.
    for (const fn of functions) await instanceOf(fn);
  });

  it('fails the cold start of a hashing function whose binary cannot load, instead of hashing slower', () => {
    const login = functionOf('login');
    const copy = mkdtempSync(join(tmpdir(), 'no-binding-'));
    try {
      for (const file of ['index.mjs', 'index.mjs.map']) {
        copyFileSync(join(login.assetDirectory, file), join(copy, file));
      }
      const started = spawnSync(
        process.execPath,
        ['--input-type=module', '-e', `await import(${JSON.stringify(join(copy, 'index.mjs'))})`],
        { env: { ...process.env, ...login.environment }, encoding: 'utf8' },
      );
      expect(started.status).not.toBe(0);
      expect(started.stderr).toContain(`Cannot find module './${argon2Bindings.x86_64.fileName}'`);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });
});

describe('the synthesized bundles, run with their template environment', () => {
  const email = `ada.${randomUUID().slice(0, 8)}@example.com`;
  const password = 'correct horse battery staple';
  let userId = '';
  let accessToken = '';
  let endpointId = '';

  it('signs up, sends the code from the queue worker, verifies, logs in, refreshes, reads the profile and logs out', async () => {
    const client = clientOfPlan();
    const signup = await call('signup', { body: { name: 'Ada', email, password } }, client.caller);
    expect(signup.status, signup.story).toBe(201);
    // The handler counts each user of the app (its key and address) at the stage's mode's limit;
    // the key's usage plan bounds the whole app.
    expect(Number(signup.headers['x-ratelimit-limit'])).toBe(rateLimitPerMode.test);

    expect(await drainQueue('sendAccountCode')).toBe(1);
    const mail = aws.emails.find((sent) => sent.to.includes(email));
    expect(mail?.from).toBe(functionOf('sendAccountCode').environment.EMAIL_FROM);
    // Through the stage's configuration set, whose events feed the bounce and complaint alarms.
    expect(mail?.configurationSet).toBe(
      deployment.ref(resourcesOf('AWS::SES::ConfigurationSet')[0]![0]),
    );
    const code = /\b(\d{6})\b/.exec(mail?.text ?? '')?.[1];
    expect(code, mail?.text).toBeDefined();

    const verified = await call('verifySignupOtp', { body: { email, otp: code } });
    expect(verified.status, verified.story).toBe(200);

    const login = await call('login', { body: { email, password } });
    expect(login.status, login.story).toBe(200);
    const user = login.body.data!.user as { id: string };
    userId = user.id;

    const refreshed = await call('refreshToken', {
      body: { refresh_token: login.body.data!.refresh_token },
    });
    expect(refreshed.status, refreshed.story).toBe(200);
    accessToken = String(refreshed.body.data!.access_token);

    const profile = await call('getProfile', {
      headers: { Authorization: `Bearer ${accessToken}` },
    });
    expect(profile.status, profile.story).toBe(200);
    expect(profile.body.data).toMatchObject({ id: userId, email, email_verified: true });

    // Verified against the same keys the JWKS function publishes.
    const jwks = await call('jwks');
    expect(jwks.status).toBe(200);

    const logout = await call('logout', { headers: { Authorization: `Bearer ${accessToken}` } });
    expect(logout.status, logout.story).toBe(200);
    const afterLogout = await call('getProfile', {
      headers: { Authorization: `Bearer ${accessToken}` },
    });
    expect(afterLogout.status).toBe(401);
    expectNoRefusals();
  });

  it('registers an endpoint, publishes an event, attempts it, retries it and schedules the third attempt', async () => {
    const login = await call('login', { body: { email, password } });
    accessToken = String(login.body.data!.access_token);
    const bearer = { Authorization: `Bearer ${accessToken}` };
    const registered = await call('registerWebhook', {
      headers: bearer,
      // A public address no receiver of ours holds: every attempt fails.
      body: {
        url: 'https://1.1.1.1:1/artifact-test',
        events: ['order.created', 'payment.successful'],
      },
    });
    expect(registered.status, registered.story).toBe(201);
    endpointId = String(registered.body.data!.id);

    const published = await call(
      'publishEvent',
      {
        body: {
          type: 'order.created',
          account_id: userId,
          data: { order_id: 'ord_1001', status: 'created', total: 12.5, currency: 'EUR' },
        },
      },
      { ...clientOfPlan().caller, iamUserArn: `arn:aws:iam::${account}:user/orders-service` },
    );
    expect(published.status, published.story).toBe(201);
    expect(published.body.data).toMatchObject({ delivery_count: 1 });

    // Attempt 1 fails; attempt 2 waits 5 minutes on the queue itself (SQS delays up to 15).
    await drainQueue('deliverWebhook');
    const worker = functionOf('deliverWebhook');
    const deliveryQueueArn = worker.environment.DELIVERY_QUEUE_ARN;
    const delayed = aws.messages.filter((message) => message.sender === worker.logicalId);
    expect(delayed.map((message) => [message.queueArn, message.delaySeconds])).toEqual([
      [deliveryQueueArn, expect.closeTo(300, -1)],
    ]);

    const listed = await call('listWebhookDeliveries', {
      headers: bearer,
      pathParameters: { id: endpointId },
    });
    expect(listed.status, listed.story).toBe(200);
    const [delivery] = listed.body.data as unknown as { id: string; attempts: unknown[] }[];
    expect(delivery!.attempts).toHaveLength(1);

    // Retried now, attempt 2 fails too; attempt 3 is 30 minutes out: an EventBridge schedule.
    const retried = await call('retryWebhookDelivery', {
      headers: bearer,
      pathParameters: { id: endpointId, delivery_id: delivery!.id },
    });
    expect(retried.status, retried.story).toBe(200);
    const before = Date.now();
    expect(await drainQueue('deliverWebhook')).toBe(1);
    expect(aws.schedules).toHaveLength(1);
    const [schedule] = aws.schedules;
    expect(schedule!.targetArn).toBe(deliveryQueueArn);
    const at = Date.parse(`${/^at\((.+)\)$/.exec(schedule!.expression)![1]}Z`);
    expect(at - before).toBeGreaterThan(29 * 60_000);
    expect(at - before).toBeLessThan(31 * 60_000);
    expect(schedule!.name).toMatch(/^due-\d{12}$/);
    // The schedule fires: its Input, on the delivery queue, has the worker queue that minute's
    // attempts from the due index — attempt 3 among them.
    const sentBefore = aws.messages.length;
    const woke = await (await instanceOf(functionOf('deliverWebhook'))).invoke<SQSBatchResponse>(
      sqsEvent(deliveryQueueArn!, region, [{ body: schedule!.input }]),
    );
    expect(woke).toEqual({ batchItemFailures: [] });
    const queued = aws.messages.slice(sentBefore).map((message) => JSON.parse(message.body));
    expect(queued).toContainEqual(
      expect.objectContaining({ delivery_id: delivery!.id, attempt: 3 }),
    );
    expectNoRefusals();
  });

  it('accepts a signed gateway B payment at its Function URL and turns it into an outbound event', async () => {
    const receiver = functionOf('handleGatewayBWebhook');
    const secretArn = receiver.environment.GATEWAY_B_WEBHOOK_SECRET_SECRET_ARN!;
    const secret = extension.values.get(secretArn)!;
    const body = Buffer.from(
      JSON.stringify({
        id: `evt_${randomUUID().replaceAll('-', '')}`,
        object: 'event',
        type: 'payment_intent.succeeded',
        created: Math.floor(Date.now() / 1000),
        data: {
          object: {
            id: 'pi_3artifact',
            object: 'payment_intent',
            amount: 1250,
            amount_received: 1250,
            currency: 'eur',
            metadata: { account_id: userId, order_id: 'ord_1001' },
          },
        },
      }),
    );
    const timestamp = Math.floor(Date.now() / 1000);
    const signature = createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
    const answer = await (await instanceOf(receiver)).invoke<APIGatewayProxyResult>(
      functionUrlEvent('gatewayb', '203.0.113.7', {
        method: 'POST',
        path: '/',
        headers: {
          'content-type': 'application/json; charset=utf-8',
          'stripe-signature': `t=${timestamp},v1=${signature}`,
        },
        body,
      }),
    );
    expect(answer.statusCode, answer.body).toBe(200);
    expect(JSON.parse(answer.body).data).toMatchObject({ received: true, duplicate: false });

    const deliveriesBefore = aws.messages.filter(
      (message) => message.sender === functionOf('processInboundEvent').logicalId,
    ).length;
    expect(await drainQueue('processInboundEvent')).toBe(1);
    const queued = aws.messages.filter(
      (message) => message.sender === functionOf('processInboundEvent').logicalId,
    );
    expect(queued.length - deliveriesBefore, 'the payment.successful delivery').toBe(1);
    expect(queued.at(-1)!.queueArn).toBe(
      functionOf('deliverWebhook').environment.DELIVERY_QUEUE_ARN,
    );
    expectNoRefusals();
  });
  it('answers every other route through its bundle, with no call its role refuses', async () => {
    const bearer = () => ({ Authorization: `Bearer ${accessToken}` });
    const answered = (answer: Answer, expected?: number) => {
      if (expected === undefined) expect(answer.status, answer.story).toBeLessThan(500);
      else expect(answer.status, answer.story).toBe(expected);
    };
    // Accounts: a forgotten password, its code from the queue worker, the reset, the sessions.
    answered(await call('forgotPassword', { body: { email } }), 200);
    await drainQueue('sendAccountCode');
    const resetMail = aws.emails.filter((sent) => sent.to.includes(email)).at(-1);
    const resetCode = /\b(\d{6})\b/.exec(resetMail?.text ?? '')?.[1];
    const newPassword = 'another horse battery staple';
    answered(
      await call('resetPasswordWithOtp', {
        body: { email, otp: resetCode, new_password: newPassword },
      }),
      200,
    );
    const login = await call('login', { body: { email, password: newPassword } });
    answered(login, 200);
    accessToken = String(login.body.data!.access_token);
    answered(
      await call('changePassword', {
        headers: bearer(),
        body: { current_password: newPassword, new_password: password },
      }),
      200,
    );
    const sessions = await call('listSessions', { headers: bearer() });
    answered(sessions, 200);
    const other = await call('login', { body: { email, password } });
    answered(other, 200);
    const listed = await call('listSessions', { headers: bearer() });
    const otherSession = (listed.body.data as unknown as { id: string; current: boolean }[]).find(
      (session) => !session.current,
    );
    answered(
      await call('revokeSession', { headers: bearer(), pathParameters: { id: otherSession!.id } }),
      200,
    );
    answered(await call('getProfile', { headers: bearer() }), 200);
    answered(await call('profileUpdate', { headers: bearer(), body: { name: 'Ada L.' } }), 200);

    // One-time passwords: wrong codes and unknown numbers, answered without a 5xx.
    const phone = '+14155550123';
    answered(await call('resendEmailOtp', { body: { email } }), 200);
    answered(await call('resendMobileOtp', { body: { mobile_number: phone } }), 200);
    await drainQueue('sendAccountCode');
    answered(await call('verifyEmailOtp', { body: { email, otp: '000000' } }));
    answered(await call('verifyMobileOtp', { body: { mobile_number: phone, otp: '000000' } }));
    answered(await call('sendOtp', { body: { phone_number: phone, purpose: 'login' } }));
    // A generic code the function texts itself: its bundle's SNS Publish, as SNS takes it.
    answered(
      await call('sendOtp', {
        headers: bearer(),
        body: { phone_number: phone, purpose: 'generic' },
      }),
      200,
    );
    expect(aws.texts.map(({ to, sender }) => ({ to, sender }))).toContainEqual({
      to: phone,
      sender: functionOf('sendOtp').logicalId,
    });
    answered(
      await call('verifyOtp', { body: { phone_number: phone, code: '000000', purpose: 'login' } }),
    );
    answered(await call('verifyPhoneAccount', { query: { phone } }), 200);

    // Documents and the catch-all.
    const served = await call('openapi');
    answered(served, 200);
    // The bundled document, its servers the stack's own public addresses (a token until deployed).
    const { servers, ...described } = served.body as unknown as { servers: { url: string }[] };
    const { servers: _, ...built } = JSON.parse(readFileSync(builtDocument, 'utf8'));
    expect(described).toEqual(built);
    expect(servers.length).toBeGreaterThan(0);
    expect(servers.map(({ url }) => url).join()).not.toContain('localhost');
    answered(await call('listEventTypes'), 200);
    answered(await call('notFound', { pathParameters: { proxy: 'no/such/path' } }), 404);

    // The rest of the webhook routes, on the endpoint registered above.
    const endpoint = { id: endpointId };
    answered(await call('listWebhooks', { headers: bearer() }), 200);
    answered(await call('getWebhook', { headers: bearer(), pathParameters: endpoint }), 200);
    answered(
      await call('updateWebhook', {
        headers: bearer(),
        pathParameters: endpoint,
        body: { description: 'artifact test' },
      }),
      200,
    );
    answered(
      await call('rotateWebhookSecret', { headers: bearer(), pathParameters: endpoint }),
      200,
    );
    const deliveries = await call('listWebhookDeliveries', {
      headers: bearer(),
      pathParameters: endpoint,
    });
    const [first] = deliveries.body.data as unknown as { id: string }[];
    answered(
      await call('getWebhookDelivery', {
        headers: bearer(),
        pathParameters: { id: endpointId, delivery_id: first!.id },
      }),
      200,
    );
    answered(await call('sendWebhookTestEvent', { headers: bearer(), pathParameters: endpoint }));
    answered(
      await call('recoverWebhook', {
        headers: bearer(),
        pathParameters: endpoint,
        body: { since: new Date(Date.now() - 3_600_000).toISOString() },
      }),
      202,
    );
    answered(await call('deleteWebhook', { headers: bearer(), pathParameters: endpoint }), 200);
    answered(await call('logoutAll', { headers: bearer() }), 200);

    // The other receivers, signed with the secrets the template generated.
    const secretOf = (routeName: string, name: string) =>
      extension.values.get(functionOf(routeName).environment[`${name}_SECRET_ARN`]!)!;
    for (const routeName of [
      'handleGatewayAWebhook',
      'handleGatewayAWebhookEnhanced',
      'handleGatewayASubscriptionWebhook',
    ]) {
      const body = Buffer.from(
        // Distinct bodies: identical ones are one event (deduplicated by their hash).
        JSON.stringify({
          event: 'payment.authorized',
          payload: {},
          note: routeName,
          created_at: Math.floor(Date.now() / 1000),
        }),
      );
      const signature = createHmac('sha256', secretOf(routeName, 'GATEWAY_A_WEBHOOK_SECRET'))
        .update(body)
        .digest('hex');
      const answer = await (await instanceOf(functionOf(routeName))).invoke<APIGatewayProxyResult>(
        functionUrlEvent('gatewaya', '203.0.113.8', {
          method: 'POST',
          path: '/',
          headers: { 'content-type': 'application/json', 'x-gateway-a-signature': signature },
          body,
        }),
      );
      expect(answer.statusCode, `${routeName}: ${answer.body}`).toBe(200);
    }
    const messaging = await instanceOf(functionOf('messagingWebhookNotification'));
    const handshake = await messaging.invoke<APIGatewayProxyResult>(
      functionUrlEvent('messaging', '203.0.113.9', {
        method: 'GET',
        path: '/',
        query: {
          'hub.mode': 'subscribe',
          'hub.verify_token': secretOf('messagingWebhookVerification', 'MESSAGING_VERIFY_TOKEN'),
          'hub.challenge': 'challenge-1',
        },
      }),
    );
    expect([handshake.statusCode, handshake.body]).toEqual([200, 'challenge-1']);
    const notification = Buffer.from(
      JSON.stringify({ object: 'whatsapp_business_account', entry: [] }),
    );
    const notified = await messaging.invoke<APIGatewayProxyResult>(
      functionUrlEvent('messaging', '203.0.113.9', {
        method: 'POST',
        path: '/',
        headers: {
          'content-type': 'application/json',
          'x-hub-signature-256': `sha256=${createHmac('sha256', secretOf('messagingWebhookNotification', 'MESSAGING_APP_SECRET')).update(notification).digest('hex')}`,
        },
        body: notification,
      }),
    );
    expect(notified.statusCode, notified.body).toBe(200);
    await drainQueue('processInboundEvent');

    // The sweepers, as their EventBridge rules invoke them.
    for (const routeName of ['sweepDeliveries', 'sweepInboundEvents']) {
      await (await instanceOf(functionOf(routeName))).invoke({
        version: '0',
        id: randomUUID(),
        'detail-type': 'Scheduled Event',
        source: 'aws.events',
        account,
        time: new Date().toISOString(),
        region,
        resources: [],
        detail: {},
      });
    }
    expectNoRefusals();
  });

  it('made every AWS call above through the SDK client of its service, by the user agent it sent', () => {
    const services = ['dynamodb', 'sqs', 'ses', 'sns', 'scheduler'];
    expect(new Set(aws.calls.map((made) => made.service))).toEqual(new Set(services));
    const unlike = aws.calls.filter(
      ({ service, userAgent }) =>
        !new RegExp(
          `^aws-sdk-js/\\d+\\.\\d+\\.\\d+ .*\\bapi/${service}#\\d+\\.\\d+\\.\\d+\\b`,
        ).test(userAgent),
    );
    expect(
      unlike.map(({ service, sender, userAgent }) => `${sender} → ${service}: "${userAgent}"`),
    ).toEqual([]);
  });
});

describe('the developer dashboard the stack serves through CloudFront', () => {
  it('uploads the pages and the assets they link, built at synth, with no API key in them', async () => {
    const deployments = resourcesOf('Custom::CDKBucketDeployment');
    const objectKeys = new Set(
      deployments.flatMap(([, d]) => d.Properties!.SourceObjectKeys as string[]),
    );
    expect(objectKeys.size).toBe(1);
    const site = stack.assetOfObjectKey([...objectKeys][0]!);
    const files = (await readdir(site, { recursive: true, withFileTypes: true }))
      .filter((entry) => entry.isFile())
      .map((entry) => relative(site, join(entry.parentPath, entry.name)));
    expect(files).toEqual(expect.arrayContaining(['index.html', 'docs']));
    const pages = await Promise.all(
      ['index.html', 'docs'].map((page) => readFile(join(site, page), 'utf8')),
    );
    const linked = pages.flatMap((page) =>
      [...page.matchAll(/\/assets\/[\w.-]+/g)].map((match) => match[0].slice(1)),
    );
    expect(linked.length).toBeGreaterThan(3);
    expect(files.sort()).toEqual(['docs', 'index.html', ...linked].sort());
    for (const file of files) {
      expect(await readFile(join(site, file), 'utf8'), file).not.toMatch(/x-api-key/i);
    }
  });

  it('counts each viewer apart behind one CloudFront address, with the key id the template gives the functions', async () => {
    const edge = '130.176.12.34';
    const dashboardKey = deployment.ref(dashboardKeyId());
    const viaDistribution = (viewer: string) =>
      call(
        'listEventTypes',
        { headers: { 'true-client-ip': viewer, Via: '2.0 0a1b2c3d.cloudfront.net (CloudFront)' } },
        { apiKey: 'the-value-cloudfront-adds', apiKeyId: dashboardKey, sourceIp: edge },
      );
    /** The per-client windows the limiter has counted for `client` (rateCounter items). */
    const windowsOf = async (client: string) => {
      const [tableId] = deployment.resourcesOf('AWS::DynamoDB::Table');
      const { Count } = await dynamo.send(
        new QueryCommand({
          TableName: deployment.ref(tableId!),
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': { S: `RATE#api#${client}` } },
        }),
      );
      return Count ?? 0;
    };

    for (const viewer of ['203.0.113.101', '203.0.113.102']) {
      expect((await viaDistribution(viewer)).status).toBe(200);
    }
    // A client app's caller writing the same header is still counted by its connection.
    const { caller } = clientOfPlan();
    await call('listEventTypes', { headers: { 'true-client-ip': '203.0.113.103' } }, caller);

    expect(await windowsOf(`key:${dashboardKey}|ip:203.0.113.101`)).toBeGreaterThan(0);
    expect(await windowsOf(`key:${dashboardKey}|ip:203.0.113.102`)).toBeGreaterThan(0);
    expect(await windowsOf(`key:${dashboardKey}|ip:${edge}`)).toBe(0);
    expect(await windowsOf(`key:${caller.apiKeyId}|ip:${caller.sourceIp}`)).toBeGreaterThan(0);
    expect(await windowsOf(`key:${caller.apiKeyId}|ip:203.0.113.103`)).toBe(0);
  });
});
