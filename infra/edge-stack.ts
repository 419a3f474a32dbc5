import { type CfnElement, CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import type { Construct } from 'constructs';
import { ApiStage, pascalCase } from './api-stage.js';
import type { ServiceRestApi } from './service-api.js';
import { baseUrlsOf } from './service-api.js';
import type { ServiceSettings } from './settings.js';

export interface EdgeStackProps extends StackProps {
  settings: ServiceSettings;
  api: ServiceRestApi;
  /** Every API resource and method of the service stacks, read when the stage is synthesized. */
  methods: () => readonly CfnElement[];
  dashboardKey: { keyId: string; value: string };
}

/**
 * What callers meet (infra/api-stage.ts): the API's deployment on stage v1, the usage plans and
 * keys, the web ACL, the custom domains; and the stage's addresses as outputs. Deployed after the
 * service stacks, so its deployment holds the methods they just added.
 */
export class EdgeStack extends Stack {
  readonly stage: ApiStage;

  constructor(scope: Construct, id: string, props: EdgeStackProps) {
    super(scope, id, props);
    const { settings } = props;
    const restApi = apigateway.RestApi.fromRestApiAttributes(this, 'RestApi', {
      restApiId: props.api.restApi.restApiId,
      rootResourceId: props.api.restApi.restApiRootResourceId,
    });
    this.stage = new ApiStage(this, 'Api', {
      restApi,
      restApiName: props.api.restApiName,
      methods: props.methods,
      settings,
      dashboardKey: props.dashboardKey,
    });
    const urls = baseUrlsOf(this, restApi.restApiId, settings);
    new CfnOutput(this, 'ApiUrl', { value: `${urls.stageUrl}/` });
    new CfnOutput(this, 'AccountsBaseUrl', {
      description: '{base_url}: accounts, OTPs and webhooks',
      value: urls.accountsBaseUrl,
    });
    new CfnOutput(this, 'ApiBaseUrl', {
      description: '{api_base_url}: the general API and webhook registration',
      value: urls.apiBaseUrl,
    });
    for (const [client, key] of this.stage.apiKeys) {
      new CfnOutput(this, `${pascalCase(client)}ApiKeyId`, {
        description: `API key of the client app ${client}: aws apigateway get-api-key --include-value --api-key <id>`,
        value: key.keyId,
      });
    }
  }
}
