import { Duration } from 'aws-cdk-lib';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { type RateLimitMode, rateLimitPerMode } from '../shared/config.js';
import type { ErrorCode } from '../shared/domain/errors.js';
import { corsAllowedHeaders, preflightMaxAgeSeconds } from '../shared/http/cors.js';
import type { ApiRoute } from '../shared/http/routes.js';

export interface ServiceApiProps {
  /**
   * Whether methods require an API key. With `false`, keys are optional: a client that sends one
   * is counted by it in the handler's per-client limiter, but API Gateway applies usage plans
   * only to methods that require a key, so the plans then throttle nobody.
   */
  apiKeyRequired: boolean;
}

/**
 * Errors API Gateway answers itself (unknown route, unsigned IAM call, throttling, a crashed
 * integration) in the service's error envelope, so clients parse one shape whatever answered.
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

function envelope(type: apigateway.ResponseType, code: ErrorCode): string {
  const message =
    type === apigateway.ResponseType.MISSING_AUTHENTICATION_TOKEN
      ? notFoundMessage
      : code === 'internal_error'
        ? // A 5xx body never carries internals, not even the gateway's own wording.
          '"Internal server error"'
        : // Already a quoted, JSON-escaped string.
          '$context.error.messageString';
  return `{"success":false,"error":{"code":"${code}","message":${message},"details":[]}}`;
}

/**
 * The REST API on stage v1 with two usage plans (test and production, each with a key) and
 * the gateway's own errors in the envelope. `addRoute` attaches a route of the route table.
 */
export class ServiceApi extends Construct {
  readonly restApi: apigateway.RestApi;
  readonly apiKeys: Record<RateLimitMode, apigateway.IApiKey>;
  private readonly apiKeyRequired: boolean;

  constructor(scope: Construct, id: string, props: ServiceApiProps) {
    super(scope, id);
    this.apiKeyRequired = props.apiKeyRequired;
    this.restApi = new apigateway.RestApi(this, 'RestApi', {
      description: 'Account, OTP and webhook service',
      endpointTypes: [apigateway.EndpointType.REGIONAL],
      // The CloudWatch role is an account-wide setting; this stack does not take it over.
      cloudWatchRole: false,
      deployOptions: { stageName: 'v1' },
    });
    // RestApi always adds an output with a generated name; the stack outputs `ApiUrl` instead.
    this.restApi.node.tryRemoveChild('Endpoint');

    for (const { type, status, code } of gatewayErrors) {
      this.restApi.addGatewayResponse(`${type.responseType}Response`, {
        type,
        statusCode: status,
        responseHeaders: { 'Content-Type': "'application/json'" },
        templates: { 'application/json': envelope(type, code) },
      });
    }

    const plan = (mode: RateLimitMode, planId: string): apigateway.IApiKey => {
      const perMinute = rateLimitPerMode[mode];
      const usagePlan = this.restApi.addUsagePlan(`${planId}Plan`, {
        name: mode,
        description: `${perMinute} requests per minute per key`,
        // Usage plans have no per-minute quota (DAY is the shortest period), so the limit is a
        // token bucket: the minute's allowance refilled evenly. The burst is a whole minute's
        // allowance because the handler's fixed window lets a client spend it at once.
        throttle: { rateLimit: perMinute / 60, burstLimit: perMinute },
        apiStages: [{ api: this.restApi, stage: this.restApi.deploymentStage }],
      });
      const key = this.restApi.addApiKey(`${planId}Key`, { description: `${mode} usage plan` });
      usagePlan.addApiKey(key);
      return key;
    };
    this.apiKeys = { test: plan('test', 'Test'), production: plan('production', 'Production') };
  }

  /**
   * CORS preflights for browser apps of `allowedOrigins`, answered by the gateway itself (a mock
   * integration, as the local runtime answers them): on each path of `routes`, the methods its
   * operations serve. Another origin gets no matching Access-Control-Allow-Origin, so the browser
   * refuses the call; API keys are not asked of a preflight, which browsers send without them.
   */
  addPreflights(routes: readonly ApiRoute[], allowedOrigins: readonly string[]): void {
    if (allowedOrigins.length === 0) return;
    const methodsByPath = new Map<string, string[]>();
    for (const route of routes) {
      if (route.method === 'ANY') continue;
      methodsByPath.set(route.path, [...(methodsByPath.get(route.path) ?? []), route.method]);
    }
    for (const [path, methods] of methodsByPath) {
      this.restApi.root.resourceForPath(path).addCorsPreflight({
        allowOrigins: [...allowedOrigins],
        allowMethods: methods,
        allowHeaders: corsAllowedHeaders,
        maxAge: Duration.seconds(preflightMaxAgeSeconds),
      });
    }
  }

  /**
   * The route's method on its path ({param} segments included), proxied to `handler`. Only `iam`
   * routes are checked by the gateway (SigV4); `user` routes are open here because the handler
   * checks the Bearer token and that its session is still live.
   */
  addRoute(route: ApiRoute, handler: IFunction): apigateway.Method {
    return this.restApi.root
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
          apiKeyRequired: this.apiKeyRequired,
        },
      );
  }
}
