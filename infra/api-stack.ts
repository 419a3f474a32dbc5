import { Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { ServiceRestApi } from './service-api.js';
import type { ServiceSettings } from './settings.js';
import { stageNameOf } from './stack-outputs.js';

export interface ApiStackProps extends StackProps {
  settings: ServiceSettings;
}

/**
 * The REST API itself: its id (the host of the stage's address, which clients may hold), the
 * gateway's own errors, the account's logging role. It changes almost never; the service stacks
 * add methods to it and the edge stack deploys them. Its id and root are exported whatever uses
 * them, so no consumer ever changes this stack.
 */
export class ApiStack extends Stack {
  readonly api: ServiceRestApi;

  constructor(scope: Construct, id: string, props: ApiStackProps) {
    super(scope, id, props);
    this.api = new ServiceRestApi(this, 'Api', {
      restApiName: stageNameOf(props.settings.stage),
      cloudWatchRole: props.settings.apiGatewayCloudWatchRole,
    });
    this.exportValue(this.api.restApi.restApiId);
    this.exportValue(this.api.restApi.restApiRootResourceId);
  }
}
