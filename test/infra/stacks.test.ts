import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { routes } from '../../functions/routes.js';
import { constructIdOf } from '../../infra/area-stack.js';
import { areaOf, areas, assertAreasOwnTheirPaths } from '../../infra/areas.js';
import { DataStack } from '../../infra/data-stack.js';
import { resourceBudget } from '../../infra/service-app.js';
import { readSettings } from '../../infra/settings.js';
import { stackNameOf, stackParts } from '../../infra/stack-outputs.js';
import type { ApiRoute, Route } from '../../shared/http/route-table.js';
import {
  appWith,
  everyOptionOn,
  type SynthesizedStage,
  synthesisTimeouts,
  synthStage,
} from './synthesized-stage.js';

vi.setConfig(synthesisTimeouts);

/**
 * The stage's stacks by lifetime and area (infra/service-app.ts): room to grow in each, data that
 * survives whatever the other stacks do, and deploys that move each function's alias step by step
 * with a way back.
 */

interface Resource {
  Type: string;
  Properties: Record<string, unknown>;
  DeletionPolicy?: string;
  UpdateReplacePolicy?: string;
}

interface StackJson {
  Resources: Record<string, Resource>;
  Outputs?: Record<string, { Value: unknown; Export?: { Name: string } }>;
}

const json = (stage: SynthesizedStage, part: (typeof stackParts)[number], name = 'test') =>
  stage.templates[stackNameOf(name, part)]!.toJSON() as StackJson;
const ofType = (template: StackJson, type: string) =>
  Object.entries(template.Resources).filter(([, resource]) => resource.Type === type);

let stage: SynthesizedStage;
let largest: SynthesizedStage;

beforeAll(() => {
  stage = synthStage();
  largest = synthStage(everyOptionOn);
});

describe('the stacks of a stage', () => {
  it('each hold at most 300 resources (60 % of CloudFormation’s 500) with every option on', () => {
    expect(resourceBudget).toBe(300);
    const counts = Object.fromEntries(
      stackParts.map((part) => [
        part,
        Object.keys(json(largest, part, 'production').Resources).length,
      ]),
    );
    for (const [part, count] of Object.entries(counts)) {
      expect(count, `${part}: ${JSON.stringify(counts)}`).toBeLessThanOrEqual(resourceBudget);
    }
  });

  it('put each area’s routes, and only those, in the area’s stack', () => {
    for (const area of areas) {
      // Each function's logical id is its construct id and CDK's 8-character hash.
      const functions = ofType(json(stage, area), 'AWS::Lambda::Function').map(([id]) =>
        id.slice(0, -8),
      );
      const entries = new Set(routes.filter((r) => areaOf(r) === area).map((r) => r.entry));
      expect(functions.sort(), area).toEqual([...entries].map(constructIdOf).sort());
    }
  });

  it('change only the new operation’s area, the API’s deployment and the operations dashboard, when an operation is added', () => {
    const listSessions = routes.find((route) => route.name === 'listSessions') as ApiRoute;
    // A function of its own (synthesized without bundling, its entry need only exist).
    const counted: Route = {
      ...listSessions,
      name: 'countSessions',
      path: '/auth/sessions/count',
      entry: 'functions/auth/list-sessions.operation.ts',
      summary: 'How many live sessions the caller has',
    };
    const withOperation = synthStage({}, [...routes, counted]);
    const changed = stackParts.filter(
      (part) =>
        JSON.stringify(json(withOperation, part).Resources) !==
        JSON.stringify(json(stage, part).Resources),
    );
    // The operations stack's throttle alarm and dashboard read every function (by its output).
    expect(changed).toEqual(['accounts', 'edge', 'operations']);
    const functions = (synthesized: SynthesizedStage) =>
      ofType(json(synthesized, 'accounts'), 'AWS::Lambda::Function').length;
    expect(functions(withOperation)).toBe(functions(stage) + 1);
  });

  it('refuse two areas sharing the first segment of a path, at synth', () => {
    const webhooksUnderAuth = {
      ...(routes.find((route) => route.name === 'listWebhooks') as ApiRoute),
      path: '/auth/webhooks',
    };
    expect(() => assertAreasOwnTheirPaths([...routes, webhooksUnderAuth])).toThrow(
      /\/auth is served by the accounts and the webhooks areas/,
    );
  });

  it('refuse another area’s route in a branch, and a branch’s route outside it, at synth', () => {
    const sessions = routes.find((route) => route.name === 'listSessions') as ApiRoute;
    const passkeys = routes.find((route) => route.name === 'listPasskeys') as ApiRoute;
    expect(() =>
      assertAreasOwnTheirPaths([...routes, { ...sessions, path: '/auth/passkeys/sessions' }]),
    ).toThrow(/\/auth\/passkeys is served by the passkeys and the accounts areas/);
    expect(() =>
      assertAreasOwnTheirPaths([...routes, { ...passkeys, path: '/auth/keys' }]),
    ).toThrow(/\/auth is served by the accounts and the passkeys areas/);
    expect(assertAreasOwnTheirPaths(routes)).toEqual(
      new Map([['passkeys', { area: 'accounts', path: '/auth' }]]),
    );
  });

  it('deploy in the order of their references: data and API first, the edge and operations last', () => {
    const { stacks } = stage;
    const dependencies = (part: keyof typeof stacks) =>
      (stacks[part] as { dependencies: { stackName: string }[] }).dependencies
        .map((dependency) => dependency.stackName.replace('AccountOtpWebhookService-test-', ''))
        .sort();
    expect(dependencies('data')).toEqual([]);
    expect(dependencies('api')).toEqual([]);
    expect(dependencies('dashboard')).toEqual(['api']);
    for (const area of areas) {
      // The areas that serve API routes build on the API and the dashboard's key, a branch also on
      // the area of its trunk; the others only on the data.
      const expected = {
        inbound: ['data'],
        passkeys: ['accounts', 'api', 'dashboard', 'data'],
      }[area as string] ?? ['api', 'dashboard', 'data'];
      expect(
        stacks.areas[area].dependencies.map((d) => d.stackName.split('-').at(-1)).sort(),
        area,
      ).toEqual(expected);
    }
    expect(dependencies('edge')).toEqual([...areas, 'api', 'dashboard'].sort());
    expect(dependencies('operations')).toEqual([...areas, 'data', 'edge'].sort());
  });
});

describe('the data stack', () => {
  /** The stateful resources by logical id. Renaming one would create an empty twin: never. */
  const pinned = {
    TableCD117FA1: 'AWS::DynamoDB::Table',
    DeliveryQueue6A0D8ED9: 'AWS::SQS::Queue',
    DeliveryDeadLetterQueue7D230F16: 'AWS::SQS::Queue',
    InboundQueue72656294: 'AWS::SQS::Queue',
    InboundDeadLetterQueue406257A9: 'AWS::SQS::Queue',
    AccountCodeQueueB1A1C42D: 'AWS::SQS::Queue',
    AccountCodeDeadLetterQueue7C08859F: 'AWS::SQS::Queue',
    JwtSigningKeysA60FFD06: 'AWS::SecretsManager::Secret',
    OtpPepper1B6AF19E: 'AWS::SecretsManager::Secret',
    GatewayAWebhookSecret3BEC1CF2: 'AWS::SecretsManager::Secret',
    GatewayBWebhookSecret8B10F836: 'AWS::SecretsManager::Secret',
    MessagingAppSecret1F439C55: 'AWS::SecretsManager::Secret',
    MessagingVerifyToken9F99FB29: 'AWS::SecretsManager::Secret',
    DeliverySchedulerGroup1EB3D6BA: 'AWS::Scheduler::ScheduleGroup',
  };

  it('keeps its stateful resources under the logical ids they were created with', () => {
    const template = json(stage, 'data');
    expect(
      Object.fromEntries(
        Object.entries(template.Resources)
          .filter(([, resource]) => Object.values(pinned).includes(resource.Type))
          .map(([id, resource]) => [id, resource.Type]),
      ),
    ).toEqual(pinned);
  });

  it('is protected from deletion, its table too, and retains every stateful resource', () => {
    expect(stage.stacks.data.terminationProtection).toBe(true);
    const template = json(stage, 'data');
    expect(template.Resources.TableCD117FA1?.Properties.DeletionProtectionEnabled).toBe(true);
    expect(template.Resources.TableCD117FA1?.Properties.PointInTimeRecoverySpecification).toEqual({
      PointInTimeRecoveryEnabled: true,
    });
    for (const id of Object.keys(pinned)) {
      expect(template.Resources[id], id).toMatchObject({
        DeletionPolicy: 'Retain',
        UpdateReplacePolicy: 'Retain',
      });
    }
  });

  it('is the same template whatever the other stacks use of it, so none of them changes it', () => {
    // Its exports are all it exports, whoever imports them: a consumer that stops using a value
    // never removes an export CloudFormation would refuse to remove while it is in use.
    const alone = appWith();
    const data = new DataStack(alone, stackNameOf('test', 'data'), {
      settings: readSettings(alone),
    });
    const { Resources, Outputs } = json(stage, 'data');
    expect(Template.fromStack(data).toJSON()).toMatchObject({ Resources, Outputs });
    expect(Object.keys(Template.fromStack(data).toJSON().Outputs)).toEqual(Object.keys(Outputs!));
  });

  it('and the API stack are the only ones that export, besides a branch’s trunk; the others read what they need as outputs', () => {
    for (const part of stackParts) {
      const exported = Object.values(json(stage, part).Outputs ?? {}).filter(
        (output) => output.Export !== undefined,
      );
      if (part === 'accounts') {
        // The /auth resource the passkeys branch hangs on: accounts cannot remove it from under it.
        const [trunk] = exported;
        const { Resources } = json(stage, 'accounts');
        const id = (trunk?.Value as { Ref: string } | undefined)?.Ref ?? '';
        expect(exported).toHaveLength(1);
        expect(Resources[id]).toMatchObject({
          Type: 'AWS::ApiGateway::Resource',
          Properties: { PathPart: 'auth' },
        });
        continue;
      }
      expect(exported.length > 0, part).toBe(part === 'data' || part === 'api');
    }
  });
});

describe('deploys', () => {
  it('move every function’s live alias by CodeDeploy, rolled back by its area’s deploy alarms', () => {
    for (const area of areas) {
      const template = json(stage, area);
      const aliases = ofType(template, 'AWS::Lambda::Alias');
      const groups = ofType(template, 'AWS::CodeDeploy::DeploymentGroup');
      const deployAlarms = ofType(template, 'AWS::CloudWatch::Alarm')
        .filter(([, alarm]) =>
          String(alarm.Properties.AlarmDescription).endsWith('#deploy-rolled-back'),
        )
        .map(([id]) => ({ Name: { Ref: id } }));
      expect(deployAlarms.length, area).toBeGreaterThanOrEqual(3);
      expect(groups.length, area).toBe(aliases.length);
      for (const [aliasId, alias] of aliases) {
        expect(alias.Properties.Name).toBe('live');
        const update = (template.Resources[aliasId] as { UpdatePolicy?: Record<string, unknown> })
          .UpdatePolicy?.CodeDeployLambdaAliasUpdate as { DeploymentGroupName: { Ref: string } };
        const [, group] = groups.find(([id]) => id === update.DeploymentGroupName.Ref)!;
        expect(group.Properties, aliasId).toMatchObject({
          DeploymentConfigName: 'CodeDeployDefault.LambdaAllAtOnce',
          AlarmConfiguration: { Enabled: true, Alarms: deployAlarms },
          AutoRollbackConfiguration: {
            Enabled: true,
            Events: expect.arrayContaining(['DEPLOYMENT_FAILURE', 'DEPLOYMENT_STOP_ON_ALARM']),
          },
        });
      }
    }
  });

  it('shift 10 % for 5 minutes first at production settings (the test stage all at once)', () => {
    const configs = new Set(
      areas.flatMap((area) =>
        ofType(json(largest, area, 'production'), 'AWS::CodeDeploy::DeploymentGroup').map(
          ([, group]) => group.Properties.DeploymentConfigName,
        ),
      ),
    );
    expect([...configs]).toEqual(['CodeDeployDefault.LambdaCanary10Percent5Minutes']);
  });

  it('roll back on the area’s 5xx answers, failed invocations and p99 duration, minute by minute', () => {
    const template = json(stage, 'accounts');
    const gates = ofType(template, 'AWS::CloudWatch::Alarm').filter(([, alarm]) =>
      String(alarm.Properties.AlarmDescription).endsWith('#deploy-rolled-back'),
    );
    const read = gates.map(([, alarm]) => JSON.stringify(alarm.Properties.Metrics));
    expect(read.some((metrics) => metrics.includes('"AccountsAnswered5xx"'))).toBe(true);
    // In groups of ten functions, the most one alarm's math reads: every function for the failed
    // invocations, those that answer requests for the p99.
    const entriesOf = (area: Route[]) => new Set(area.map((route) => route.entry)).size;
    const accounts = routes.filter((route) => areaOf(route) === 'accounts');
    const serving = accounts.filter(
      (route) => route.surface === 'api' || route.surface === 'function-url',
    );
    expect(read.filter((metrics) => metrics.includes('"Errors"')).length).toBe(
      Math.ceil(entriesOf(accounts) / 10),
    );
    expect(read.filter((metrics) => metrics.includes('"p99"')).length).toBe(
      Math.ceil(entriesOf(serving) / 10),
    );
    for (const [id, alarm] of gates) {
      // CodeDeploy watches them; the operations stack's alarms notify.
      expect(alarm.Properties.AlarmActions, id).toBeUndefined();
      for (const query of alarm.Properties.Metrics as { MetricStat?: { Period: number } }[]) {
        if (query.MetricStat !== undefined) expect(query.MetricStat.Period, id).toBe(60);
      }
    }
    // Each API answer of 5xx counts, from the function's own request line.
    const filters = ofType(template, 'AWS::Logs::MetricFilter').filter(
      ([, filter]) =>
        (filter.Properties.MetricTransformations as { MetricName: string }[])[0]!.MetricName ===
        'AccountsAnswered5xx',
    );
    expect(filters.length).toBe(
      new Set(
        routes
          .filter((route) => route.surface === 'api' && areaOf(route) === 'accounts')
          .map((route) => route.entry),
      ).size,
    );
    expect(filters[0]![1].Properties.FilterPattern).toBe(
      '{ ($.message = "request") && ($.status >= 500) }',
    );
  });

  it('make a new deployment of the API whenever a method changes, and only then', () => {
    const deploymentOf = (synthesized: SynthesizedStage) =>
      ofType(json(synthesized, 'edge'), 'AWS::ApiGateway::Deployment').map(([id]) => id);
    expect(deploymentOf(synthStage())).toEqual(deploymentOf(stage));
    expect(deploymentOf(synthStage({ corsAllowedOrigins: 'https://app.example.com' }))).not.toEqual(
      deploymentOf(stage),
    );
  });
});
