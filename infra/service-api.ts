import { RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as iam from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import type { ErrorCode } from '../shared/domain/errors.js';
import {
  corsAllowedHeaders,
  preflightMaxAgeSeconds,
  preflightRefusedMessage,
} from '../shared/http/cors.js';
import { type GatewayAnswer, gatewayAnswers } from '../shared/http/gateway-answers.js';
import type { ApiRoute } from '../shared/http/route-table.js';
import { acknowledgeFinding } from './acknowledge-finding.js';
import type { ServiceSettings } from './settings.js';

export const errorEnvelope = (code: ErrorCode, quotedMessage: string) =>
  `{"success":false,"error":{"code":"${code}","message":${quotedMessage},"details":[]}}`;

/**
 * The headers of every answer the gateway makes itself, as response parameters: the request id
 * API Gateway gave the request (`context.requestId`, the id its access log records), and the
 * static headers quoted.
 */
export const gatewayAnswerHeaders = (retryAfterSeconds?: number): Record<string, string> => ({
  'Content-Type': "'application/json'",
  'X-Request-Id': 'context.requestId',
  'Cache-Control': "'no-store'",
  ...(retryAfterSeconds === undefined ? {} : { 'Retry-After': `'${retryAfterSeconds}'` }),
});

/**
 * Errors API Gateway answers itself (unknown route, missing key, unsigned IAM call, the usage
 * plan's throttle and quota, a crashed integration, a request the web ACL refused) in the
 * service's error envelope, so clients parse one shape whatever answered
 * (shared/http/gateway-answers.ts).
 */
function gatewayResponseOf(answer: GatewayAnswer): apigateway.GatewayResponseOptions {
  const message =
    answer.message === undefined
      ? // Already a quoted, JSON-escaped string.
        '$context.error.messageString'
      : JSON.stringify(answer.message);
  return {
    type: apigateway.ResponseType.of(answer.type),
    statusCode: String(answer.status),
    responseHeaders: gatewayAnswerHeaders(answer.retryAfterSeconds),
    templates: { 'application/json': errorEnvelope(answer.code, message) },
  };
}

export interface ServiceRestApiProps {
  /** The API's name, the stage's (`<service>-<stage>`): API Gateway's metrics are per API name. */
  restApiName: string;
  /** Whether to set the account's API Gateway CloudWatch Logs role (see ServiceSettings). */
  cloudWatchRole: boolean;
}

/**
 * The REST API itself, in a stack of its own that the others build on: its id (the host of its
 * stage address), the gateway's own errors in the envelope, and the account's logging role. The
 * service stacks add their routes' resources and methods to it (`addRouteMethod`), and the edge
 * stack deploys them to stage v1 with its limits (infra/api-stage.ts). A plain CfnRestApi: CDK's
 * RestApi refuses to be synthesized without methods of its own.
 */
export class ServiceRestApi extends Construct {
  readonly restApi: apigateway.IRestApi;
  readonly restApiName: string;

  constructor(scope: Construct, id: string, props: ServiceRestApiProps) {
    super(scope, id);
    const resource = new apigateway.CfnRestApi(this, 'RestApi', {
      name: props.restApiName,
      description: `Account, OTP and webhook service (${props.restApiName})`,
      endpointConfiguration: { types: ['REGIONAL'] },
    });
    this.restApiName = props.restApiName;
    acknowledgeFinding(
      resource,
      'AwsSolutions-APIG2',
      "Requests are validated in each function against the route table's schemas, which answer one detail per bad field in sentences naming it and refuse unknown fields (docs/conventions.md); a gateway validator would answer the same 400 less usefully and keep a second copy of every schema.",
    );
    this.restApi = apigateway.RestApi.fromRestApiAttributes(this, 'Api', {
      restApiId: resource.ref,
      rootResourceId: resource.attrRootResourceId,
    });

    for (const answer of gatewayAnswers) {
      new apigateway.GatewayResponse(this, `${answer.type}Response`, {
        restApi: this.restApi,
        ...gatewayResponseOf(answer),
      });
    }

    if (props.cloudWatchRole) {
      // API Gateway writes logs only through this account-wide role. Retained: another stage's
      // API in the account keeps needing it after this stack is deleted.
      const role = new iam.Role(this, 'CloudWatchRole', {
        assumedBy: new iam.ServicePrincipal('apigateway.amazonaws.com'),
        managedPolicies: [
          iam.ManagedPolicy.fromAwsManagedPolicyName(
            'service-role/AmazonAPIGatewayPushToCloudWatchLogs',
          ),
        ],
      });
      role.applyRemovalPolicy(RemovalPolicy.RETAIN);
      acknowledgeFinding(
        role,
        'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
        "The account-wide role through which API Gateway writes the logs of every API in the account and region: AWS's managed policy is the documented one, and narrowing it to this API would stop the logs of the others.",
      );
      const account = new apigateway.CfnAccount(this, 'Account', {
        cloudWatchRoleArn: role.roleArn,
      });
      account.applyRemovalPolicy(RemovalPolicy.RETAIN);
      account.node.addDependency(resource);
    }
  }
}

/** The API's base addresses, as clients and the functions know them. */
export interface BaseUrls {
  /** The stage's own address on execute-api, ending in /v1. */
  stageUrl: string;
  /** {base_url}: accounts and webhooks; the custom domain when there is one, else the stage. */
  accountsBaseUrl: string;
  /** {api_base_url}: the general API; the custom domain when there is one, else the stage. */
  apiBaseUrl: string;
}

/**
 * The base addresses of the API of `restApiId`, in `scope`'s stack: built from the id and the
 * settings, not from the stage, so the functions that serve the stage can be told them.
 */
export function baseUrlsOf(
  scope: Construct,
  restApiId: string,
  settings: Pick<ServiceSettings, 'accountsDomain' | 'apiDomain'>,
): BaseUrls {
  const stack = Stack.of(scope);
  const stageUrl = `https://${restApiId}.execute-api.${stack.region}.${stack.urlSuffix}/v1`;
  return {
    stageUrl,
    accountsBaseUrl:
      settings.accountsDomain === undefined
        ? stageUrl
        : `https://${settings.accountsDomain.domainName}/v1`,
    apiBaseUrl:
      settings.apiDomain === undefined ? stageUrl : `https://${settings.apiDomain.domainName}/v1`,
  };
}

/** The API resource of a path (`/auth/login`), created on first use by the stack that asks. */
export type ResourceAt = (path: string) => apigateway.IResource;

/**
 * The route's method on its path ({param} segments included), proxied to `handler` (a function's
 * `live` alias), requiring an API key of a usage plan. Only `iam` routes are checked by the gateway
 * (SigV4); `user` routes are open here because the handler checks the Bearer token and that its
 * session is still live. The permission names the method on any stage of this API: the stage is
 * deployed after the method, in the edge stack.
 */
export function addRouteMethod(
  resourceAt: ResourceAt,
  route: ApiRoute,
  handler: IFunction,
): apigateway.Method {
  return resourceAt(route.path).addMethod(
    route.method,
    new apigateway.LambdaIntegration(handler, { allowTestInvoke: false }),
    {
      operationName: route.name,
      authorizationType:
        route.auth === 'iam' ? apigateway.AuthorizationType.IAM : apigateway.AuthorizationType.NONE,
      apiKeyRequired: true,
    },
  );
}

/**
 * CORS preflights for browser apps of `allowedOrigins`, answered by the gateway itself (a mock
 * integration), as the local runtime answers them: on each path of `routes`, a preflight from an
 * allowed origin for a method the path serves gets 204 with the CORS headers (its origin echoed);
 * any other is refused with 403 `forbidden` in the envelope, with the gateway's request id. API
 * keys are not asked of a preflight, which browsers send without them; no window counts one.
 */
export function addPreflights(
  resourceAt: ResourceAt,
  routes: readonly ApiRoute[],
  allowedOrigins: readonly string[],
): void {
  const [firstOrigin] = allowedOrigins;
  if (firstOrigin === undefined) return;
  const methodsByPath = new Map<string, string[]>();
  for (const route of routes) {
    if (route.method === 'ANY') continue;
    methodsByPath.set(route.path, [...(methodsByPath.get(route.path) ?? []), route.method]);
  }
  const refusedHeaders: Record<string, string> = {
    ...gatewayAnswerHeaders(),
    Vary: "'Origin'",
  };
  for (const [path, methods] of methodsByPath) {
    const allowedHeaders: Record<string, string> = {
      // A placeholder the template replaces with the request's own (allowed) origin.
      'Access-Control-Allow-Origin': `'${firstOrigin}'`,
      'Access-Control-Allow-Methods': `'${methods.join(',')}'`,
      'Access-Control-Allow-Headers': `'${corsAllowedHeaders.join(',')}'`,
      'Access-Control-Max-Age': `'${preflightMaxAgeSeconds}'`,
      Vary: "'Origin'",
    };
    resourceAt(path).addMethod(
      'OPTIONS',
      new apigateway.MockIntegration({
        requestTemplates: { 'application/json': preflightDecision(allowedOrigins, methods) },
        integrationResponses: [
          {
            statusCode: '204',
            responseParameters: methodResponseParameters(allowedHeaders),
            responseTemplates: {
              'application/json': [
                readHeader('origin', 'Origin'),
                '#set($context.responseOverride.header.Access-Control-Allow-Origin = $origin)',
              ].join('\n'),
            },
          },
          {
            statusCode: '403',
            selectionPattern: '403',
            responseParameters: methodResponseParameters(refusedHeaders),
            responseTemplates: {
              'application/json': errorEnvelope(
                'forbidden',
                JSON.stringify(preflightRefusedMessage),
              ),
            },
          },
        ],
      }),
      {
        authorizationType: apigateway.AuthorizationType.NONE,
        apiKeyRequired: false,
        methodResponses: [
          { statusCode: '204', responseParameters: declared(allowedHeaders) },
          { statusCode: '403', responseParameters: declared(refusedHeaders) },
        ],
      },
    );
  }
}

const methodResponseParameters = (headers: Record<string, string>) =>
  Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [`method.response.header.${name}`, value]),
  );

const declared = (headers: Record<string, string>) =>
  Object.fromEntries(Object.keys(headers).map((name) => [`method.response.header.${name}`, true]));

/** `$variable` set to the request header `name`, however the browser cased it. */
const readHeader = (variable: string, name: string) =>
  [
    `#set($${variable} = $input.params().header.get("${name}"))`,
    `#if("$!${variable}" == "")#set($${variable} = $input.params().header.get("${name.toLowerCase()}"))#end`,
  ].join('\n');

/**
 * The mock integration's request template: status 204 for an allowed origin asking for a method
 * of the path, else 403 (which selects the refusal's integration response).
 */
function preflightDecision(allowedOrigins: readonly string[], methods: readonly string[]): string {
  const anyOf = (variable: string, values: readonly string[]) =>
    values.map((value) => `$${variable} == "${value}"`).join(' || ');
  const originAllowed = allowedOrigins.includes('*')
    ? '"$!origin" != ""'
    : anyOf('origin', allowedOrigins);
  return [
    readHeader('origin', 'Origin'),
    readHeader('method', 'Access-Control-Request-Method'),
    `#if((${originAllowed}) && (${anyOf('method', methods)}))`,
    '{"statusCode": 204}',
    '#else',
    '{"statusCode": 403}',
    '#end',
  ].join('\n');
}
