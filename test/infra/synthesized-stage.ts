import { readFileSync } from 'node:fs';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { addServiceStacks, type ServiceStacks } from '../../infra/service-app.js';
import type { Route } from '../../shared/http/route-table.js';
import { mergedTemplate, type StackTemplate } from '../support/merged-templates.js';

/**
 * A synthesis of the stage's nine stacks, cdk-nag included, takes 10 to 20 s on an idle 2-core
 * machine and several times that while other test files run beside it: the CDK test files take
 * these timeouts (`vi.setConfig`), not the suite's 30 s.
 */
export const synthesisTimeouts = { testTimeout: 300_000, hookTimeout: 300_000 };

/** The context of the checked-in cdk.json: what `npm run synth` and `cdk deploy` read. */
export const checkedInContext = (
  JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8')) as {
    context: Record<string, unknown> & {
      stages: { test: Record<string, unknown>; production: Record<string, unknown> };
    };
  }
).context;

export interface SynthesizedStage {
  stacks: ServiceStacks;
  /** Each stack's template, by stack name. */
  templates: Record<string, Template>;
  /** The stage's stacks as one template, references between them resolved (merged-templates.ts). */
  template: Template;
}

/** A new app with cdk.json's context and `context` on top, as `-c` would put it. */
export const appWith = (context: Record<string, unknown> = {}) =>
  new App({ context: { ...checkedInContext, 'aws:cdk:bundling-stacks': [], ...context } });

/**
 * Synthesises the stage as bin/app.ts builds it (cdk-nag included), with cdk.json's context and
 * `context` on top, without bundling (assertion tests never run esbuild); from another route
 * table than the service's when `routes` is given.
 */
export function synthStage(
  context: Record<string, unknown> = {},
  routes?: readonly Route[],
): SynthesizedStage {
  const app = appWith(context);
  const stacks = addServiceStacks(app, routes);
  const assembly = app.synth();
  const json = Object.fromEntries(
    assembly.stacks.map((stack) => [stack.stackName, stack.template as StackTemplate]),
  );
  return {
    stacks,
    templates: Object.fromEntries(
      Object.entries(json).map(([name, template]) => [name, Template.fromJSON(template)]),
    ),
    template: Template.fromJSON(mergedTemplate(json)),
  };
}

/**
 * Every option on, at production settings: the largest the stacks get (custom domains with their
 * certificates and records, browser origins, a dashboard domain, alarm email, a sender id, three
 * client apps in two tiers).
 */
export const everyOptionOn: Record<string, unknown> = {
  stage: 'production',
  accountsDomainName: 'accounts.example.com',
  apiDomainName: 'api.example.com',
  hostedZoneId: 'Z0123456789ABCDEFGHIJ',
  hostedZoneName: 'example.com',
  corsAllowedOrigins: 'https://app.example.com,https://admin.example.com',
  dashboardDomainName: 'dashboard.example.com',
  dashboardCertificateArn:
    'arn:aws:acm:us-east-1:123456789012:certificate/11111111-2222-3333-4444-555555555555',
  alarmEmail: 'oncall@example.com',
  smsSenderId: 'Acme',
  apiClients: 'ios-app,web-app,orders-service:backend',
};
