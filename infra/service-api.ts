import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as iam from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import type { ErrorCode } from '../shared/domain/errors.js';
import { corsAllowedHeaders, preflightMaxAgeSeconds } from '../shared/http/cors.js';
import type { ApiRoute } from '../shared/http/route-table.js';
import { acknowledgeFinding } from './acknowledge-finding.js';
import type { ServiceSettings } from './settings.js';

/**
 * Errors API Gateway answers itself (unknown route, unsigned IAM call, throttling, a crashed
 * integration, a request the web ACL refused) in the service's error envelope, so clients parse
 * one shape whatever answered.
 */
const gatewayErrors: { type: apigateway.ResponseType; status: string; code: ErrorCode }[] = [
  // REST APIs answer an unknown method or path with MISSING_AUTHENTICATION_TOKEN (403); the
  // contract says 404. The same type covers an unsigned call to an IAM route, hence the message.
  { type: apigateway.ResponseType.MISSING_AUTHENTICATION_TOKEN, status: '404', code: 'not_found' },
  { type: apigateway.ResponseType.RESOURCE_NOT_FOUND, status: '404', code: 'not_found' },
  { type: apigateway.ResponseType.INVALID_SIGNATURE, status: '401', code: 'unauthorized' },
  { type: apigateway.ResponseType.EXPIRED_TOKEN, status: '401', code: 'unauthorized' },
  { type: apigateway.ResponseType.ACCESS_DENIED, status: '403', code: 'forbidden' },
  { type: apigateway.ResponseType.INVALID_API_KEY, status: '403', code: 'forbidden' },
  { type: apigateway.ResponseType.WAF_FILTERED, status: '403', code: 'forbidden' },
  { type: apigateway.ResponseType.THROTTLED, status: '429', code: 'rate_limited' },
  { type: apigateway.ResponseType.QUOTA_EXCEEDED, status: '429', code: 'rate_limited' },
  { type: apigateway.ResponseType.REQUEST_TOO_LARGE, status: '413', code: 'payload_too_large' },
  // The contract answers a wrong content type with 400, never 415.
  { type: apigateway.ResponseType.UNSUPPORTED_MEDIA_TYPE, status: '400', code: 'invalid_request' },
  { type: apigateway.ResponseType.DEFAULT_4XX, status: '400', code: 'invalid_request' },
  { type: apigateway.ResponseType.DEFAULT_5XX, status: '500', code: 'internal_error' },
];

const notFoundMessage =
  '"No route matches this method and path (or the route needs a SigV4-signed request)"';

export const errorEnvelope = (code: ErrorCode, quotedMessage: string) =>
  `{"success":false,"error":{"code":"${code}","message":${quotedMessage},"details":[]}}`;

function envelope(type: apigateway.ResponseType, code: ErrorCode): string {
  const message =
    type === apigateway.ResponseType.MISSING_AUTHENTICATION_TOKEN
      ? notFoundMessage
      : code === 'internal_error'
        ? // A 5xx body never carries internals, not even the gateway's own wording.
          '"Internal server error"'
        : // Already a quoted, JSON-escaped string.
          '$context.error.messageString';
  return errorEnvelope(code, message);
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

    for (const { type, status, code } of gatewayErrors) {
      new apigateway.GatewayResponse(this, `${type.responseType}Response`, {
        restApi: this.restApi,
        type,
        statusCode: status,
        responseHeaders: { 'Content-Type': "'application/json'" },
        templates: { 'application/json': envelope(type, code) },
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

/**
 * The route's method on its path ({param} segments included), proxied to `handler` (a function's
 * `live` alias), requiring an API key of a usage plan. Only `iam` routes are checked by the gateway
 * (SigV4); `user` routes are open here because the handler checks the Bearer token and that its
 * session is still live. The permission names the method on any stage of this API: the stage is
 * deployed after the method, in the edge stack.
 */
export function addRouteMethod(
  restApi: apigateway.IRestApi,
  route: ApiRoute,
  handler: IFunction,
): apigateway.Method {
  return restApi.root
    .resourceForPath(route.path)
    .addMethod(
      route.method,
      new apigateway.LambdaIntegration(handler, { allowTestInvoke: false }),
      {
        operationName: route.name,
        authorizationType:
          route.auth === 'iam'
            ? apigateway.AuthorizationType.IAM
            : apigateway.AuthorizationType.NONE,
        apiKeyRequired: true,
      },
    );
}

/**
 * CORS preflights for browser apps of `allowedOrigins`, answered by the gateway itself (a mock
 * integration, as the local runtime answers them): on each path of `routes`, the methods its
 * operations serve. Another origin gets no matching Access-Control-Allow-Origin, so the browser
 * refuses the call; API keys are not asked of a preflight, which browsers send without them.
 */
export function addPreflights(
  restApi: apigateway.IRestApi,
  routes: readonly ApiRoute[],
  allowedOrigins: readonly string[],
): void {
  if (allowedOrigins.length === 0) return;
  const methodsByPath = new Map<string, string[]>();
  for (const route of routes) {
    if (route.method === 'ANY') continue;
    methodsByPath.set(route.path, [...(methodsByPath.get(route.path) ?? []), route.method]);
  }
  for (const [path, methods] of methodsByPath) {
    restApi.root.resourceForPath(path).addCorsPreflight({
      allowOrigins: [...allowedOrigins],
      allowMethods: methods,
      allowHeaders: corsAllowedHeaders,
      maxAge: Duration.seconds(preflightMaxAgeSeconds),
    });
  }
}
