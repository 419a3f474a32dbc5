import { Stack, type StackProps } from 'aws-cdk-lib';
import type * as apigateway from 'aws-cdk-lib/aws-apigateway';
import type { Construct } from 'constructs';
import { DashboardApiKey, DashboardSite } from './dashboard-site.js';
import type { ServiceSettings } from './settings.js';
import { stageNameOf } from './stack-outputs.js';

export interface DashboardStackProps extends StackProps {
  settings: ServiceSettings;
  restApi: apigateway.IRestApi;
}

/**
 * The developer dashboard: its CloudFront distribution and files, and the API key only the
 * distribution holds. Deployed before the service stacks, which give their functions the key's id,
 * and the edge stack, which puts the key in the dashboard's usage plan and the web ACL: both read
 * it as an output of this stack, so a rotation (`dashboardApiKeyGeneration`) replaces the key here
 * and they follow in the same `cdk deploy --all`.
 */
export class DashboardStack extends Stack {
  readonly key: DashboardApiKey;
  readonly site: DashboardSite;

  constructor(scope: Construct, id: string, props: DashboardStackProps) {
    super(scope, id, props);
    const { settings } = props;
    this.key = new DashboardApiKey(this, 'DashboardApiKey', {
      generation: settings.dashboardApiKeyGeneration,
      name: stageNameOf(settings.stage),
    });
    this.site = new DashboardSite(this, 'Dashboard', {
      restApi: props.restApi,
      apiKey: this.key,
      domain: settings.dashboardDomain,
      hostedZone: settings.hostedZone,
    });
  }
}
