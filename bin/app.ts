import { App } from 'aws-cdk-lib';
import { ServiceStack } from '../infra/service-stack.js';

const app = new App();
new ServiceStack(app, 'AccountOtpWebhookService', {
  // Set when the CLI has credentials; without them (offline synth) the stack is
  // environment-agnostic.
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
});
