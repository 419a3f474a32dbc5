import * as sns from 'aws-cdk-lib/aws-sns';
import type { IConstruct } from 'constructs';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { addServiceStacks } from '../../infra/service-app.js';
import { appWith, everyOptionOn, synthesisTimeouts } from './synthesized-stage.js';

vi.setConfig(synthesisTimeouts);

/** Every acknowledged finding under `root`: rule → reason, once per rule. */
function acknowledged(root: IConstruct): Map<string, string> {
  const found = new Map<string, string>();
  for (const construct of root.node.findAll()) {
    for (const entry of construct.node.metadata) {
      if (entry.type !== 'aws:cdk:acknowledged-rules') continue;
      for (const [rule, reason] of Object.entries(entry.data as Record<string, string>)) {
        found.set(rule.replace(/^AwsSolutions::/, '').replace(/<[A-Za-z0-9]+>/g, '<id>'), reason);
      }
    }
  }
  return found;
}

describe('cdk-nag AWS Solutions checks', () => {
  const variants: Record<string, Record<string, unknown>> = {
    'the checked-in cdk.json': {},
    'production with custom domains': {
      stage: 'production',
      accountsDomainName: 'accounts.example.com',
      apiDomainName: 'api.example.com',
      hostedZoneId: 'Z0123456789ABCDEFGHIJ',
      hostedZoneName: 'example.com',
    },
    'browser origins (gateway-answered preflights)': {
      corsAllowedOrigins: 'https://app.example.com',
    },
    'the dashboard on its own domain (TLS 1.2 minimum, no acknowledgement)': {
      dashboardDomainName: 'dashboard.example.com',
      dashboardCertificateArn:
        'arn:aws:acm:us-east-1:123456789012:certificate/11111111-2222-3333-4444-555555555555',
    },
    'production with every option on': everyOptionOn,
  };
  /** What each synthesis threw: the checks run then, and throw the report of what they found. */
  const outcomes = new Map<string, unknown>();
  // Five whole syntheses of every stack with every rule checked: minutes on a loaded 2-core machine.
  beforeAll(() => {
    for (const [name, context] of Object.entries(variants)) {
      const app = appWith(context);
      addServiceStacks(app);
      try {
        app.synth();
        outcomes.set(name, undefined);
      } catch (error) {
        outcomes.set(name, error);
      }
    }
  });

  it('find nothing unacknowledged in any stack cdk.json describes, nor with domains or origins', () => {
    expect(Object.fromEntries(outcomes)).toEqual(
      Object.fromEntries(Object.keys(variants).map((name) => [name, undefined])),
    );
  });

  it('are on: a finding nobody acknowledged fails the synthesis', () => {
    const app = appWith();
    const { operations } = addServiceStacks(app);
    new sns.Topic(operations, 'TopicWithoutTls');
    expect(() => app.synth()).toThrow(/SNS Topic does not require publishers to use SSL/);
  });

  it('acknowledge exactly these findings, each with its reason', () => {
    const app = appWith();
    addServiceStacks(app);
    const findings = acknowledged(app);
    expect([...findings.keys()].sort()).toEqual([
      'AwsSolutions-APIG2',
      'AwsSolutions-APIG4',
      // The dashboard's distribution (infra/dashboard-site.ts).
      'AwsSolutions-CFR1',
      'AwsSolutions-CFR2',
      'AwsSolutions-CFR4',
      'AwsSolutions-COG4',
      // CDK's BucketDeployment handler, which copies the dashboard's files during a deploy.
      // CodeDeploy's role in each service stack, which shifts the live aliases.
      'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSCodeDeployRoleForLambdaLimited]',
      'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
      'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
      'AwsSolutions-IAM5[Action::s3:Abort*]',
      'AwsSolutions-IAM5[Action::s3:DeleteObject*]',
      'AwsSolutions-IAM5[Action::s3:GetBucket*]',
      'AwsSolutions-IAM5[Action::s3:GetObject*]',
      'AwsSolutions-IAM5[Action::s3:List*]',
      'AwsSolutions-IAM5[Resource::*]',
      'AwsSolutions-IAM5[Resource::<DashboardSiteAB106610.Arn>/*]',
      'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:s3:::cdk-hnb659fds-assets-<AWS::AccountId>-<AWS::Region>/*]',
      'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:scheduler:<AWS::Region>:<AWS::AccountId>:schedule/AccountOtpWebhookService-test-deliveries/*]',
      'AwsSolutions-L1',
      // The dashboard's access-log bucket does not log itself.
      'AwsSolutions-S1',
      'AwsSolutions-SMG4',
      // aws-cdk-lib's own: the log bucket takes S3 server access logs through its ACL.
      'CloudFormation-Validate::W3045',
    ]);
    for (const [rule, reason] of findings) expect(reason.length, rule).toBeGreaterThan(60);
  });
});
