import { type App, Validations } from 'aws-cdk-lib';
import type { CloudAssembly } from 'aws-cdk-lib/cx-api';
import { AwsSolutionsChecks } from 'cdk-nag';
import { routes as routeTable } from '../functions/routes.js';
import type { Route } from '../shared/http/route-table.js';
import { ApiStack } from './api-stack.js';
import { AreaStack } from './area-stack.js';
import { type Area, areaOf, areas, assertAreasOwnTheirPaths } from './areas.js';
import { DashboardStack } from './dashboard-stack.js';
import { DataStack } from './data-stack.js';
import { EdgeStack } from './edge-stack.js';
import { OperationsStack } from './operations-stack.js';
import { readSettings } from './settings.js';
import { stackNameOf } from './stack-outputs.js';

/** The stacks of one stage (infra/stack-outputs.ts lists them in deploy order). */
export interface ServiceStacks {
  data: DataStack;
  api: ApiStack;
  dashboard: DashboardStack;
  areas: Record<Area, AreaStack>;
  edge: EdgeStack;
  operations: OperationsStack;
}

/**
 * What `cdk synth` and `cdk deploy --all` build — `bin/app.ts` calls this, and so do the tests, so
 * they check the stacks that ship: the stage's stacks (`-c stage=<name>`, settings from the
 * context) by lifetime and area, checked by cdk-nag's AWS Solutions rules. An unacknowledged
 * finding fails the synthesis; the acknowledged ones carry their reasons in the stacks. `routes`
 * is the route table's, unless a test asks what another would build.
 */
export function addServiceStacks(app: App, routes: readonly Route[] = routeTable): ServiceStacks {
  const settings = readSettings(app);
  const trunks = assertAreasOwnTheirPaths(routes);
  const props = {
    settings,
    // With the CLI's credentials, or the stage's account and region, the stacks know where they
    // go; offline and without them they are environment-agnostic.
    env: {
      account: settings.account ?? process.env.CDK_DEFAULT_ACCOUNT,
      region: settings.region ?? process.env.CDK_DEFAULT_REGION,
    },
  };
  const describe = (what: string) =>
    `Account, OTP and webhook service, stage ${settings.stage}: ${what}`;
  const name = (part: Parameters<typeof stackNameOf>[1]) => stackNameOf(settings.stage, part);

  const data = new DataStack(app, name('data'), {
    ...props,
    description: describe('table, queues, secrets, schedules (retained)'),
  });
  const api = new ApiStack(app, name('api'), { ...props, description: describe('the REST API') });
  const dashboard = new DashboardStack(app, name('dashboard'), {
    ...props,
    description: describe('the developer dashboard'),
    restApi: api.api.restApi,
  });
  const areaStacks = {} as Record<Area, AreaStack>;
  // In the order of `areas`: an area that serves a branch comes after the one it hangs on.
  for (const area of areas) {
    const trunk = trunks.get(area);
    areaStacks[area] = new AreaStack(app, name(area), {
      ...props,
      description: describe(`the ${area} area`),
      area,
      routes: routes.filter((route) => areaOf(route) === area),
      data,
      api: api.api,
      dashboardKeyId: dashboard.key.apiKey.keyId,
      dashboardUrl: dashboard.site.url,
      trunk: trunk === undefined ? undefined : areaStacks[trunk.area].trunkAt(trunk.path),
    });
  }
  const edge = new EdgeStack(app, name('edge'), {
    ...props,
    description: describe('the API stage, usage plans, web ACL and domains'),
    api: api.api,
    methods: () => Object.values(areaStacks).flatMap((area) => area.apiElements),
    dashboardKey: { keyId: dashboard.key.apiKey.keyId, value: dashboard.key.value },
  });
  for (const area of Object.values(areaStacks)) edge.addStackDependency(area);
  const operations = new OperationsStack(app, name('operations'), {
    ...props,
    description: describe('dashboard and alarms'),
    data,
    areas: Object.values(areaStacks),
    restApiName: api.api.restApiName,
  });
  operations.addStackDependency(edge);

  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return { data, api, dashboard, areas: areaStacks, edge, operations };
}

/**
 * Each stack's resources against the budget of 300 (60 % of CloudFormation's 500, test/infra holds
 * every stack to it at production settings): one line per stack, in deploy order.
 */
export function resourceCounts(assembly: CloudAssembly): string[] {
  return assembly.stacks.map((stack) => {
    const count = Object.keys(stack.template.Resources ?? {}).length;
    const over =
      count > resourceBudget ? ` — over the budget of ${resourceBudget}: split an area` : '';
    return `${stack.stackName}: ${count} resources${over}`;
  });
}

/** The most resources a stack of the stage should hold: room to grow under CloudFormation's 500. */
export const resourceBudget = 300;
