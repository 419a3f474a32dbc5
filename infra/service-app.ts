import { type App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { ServiceStack } from './service-stack.js';
import { readSettings } from './settings.js';
import { stackNameOf } from './stack-outputs.js';

/**
 * What `cdk synth` and `cdk deploy` build — `bin/app.ts` calls this, and so do the tests, so
 * they check the stack that ships: the stage's stack (`-c stage=<name>`, settings from the
 * context), checked by cdk-nag's AWS Solutions rules. An unacknowledged finding fails the
 * synthesis; the acknowledged ones carry their reasons in the stack.
 */
export function addServiceStack(app: App): ServiceStack {
  const settings = readSettings(app);
  const stack = new ServiceStack(app, stackNameOf(settings.stage), {
    settings,
    description: `Account, OTP and webhook service, stage ${settings.stage}`,
    // Set when the CLI has credentials; without them (offline synth) the stack is
    // environment-agnostic.
    env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
  });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return stack;
}
