import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as acm from 'aws-cdk-lib/aws-certificatemanager';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as route53 from 'aws-cdk-lib/aws-route53';
import * as route53Targets from 'aws-cdk-lib/aws-route53-targets';
import * as wafv2 from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import { type RateLimitMode, rateLimitPerMode } from '../shared/config.js';
import type { ErrorCode } from '../shared/domain/errors.js';
import { viewerNetworkHeader } from '../shared/http/caller-address.js';
import { corsAllowedHeaders, preflightMaxAgeSeconds } from '../shared/http/cors.js';
import type { ApiRoute } from '../shared/http/route-table.js';
import { acknowledgeFinding } from './acknowledge-finding.js';
import type { DashboardApiKey } from './dashboard-site.js';
import type { DomainSettings, HostedZoneSettings } from './settings.js';

export interface ServiceApiProps {
  /** The usage plan's mode: its throttle is the handlers' per-client limit. */
  rateLimitMode: RateLimitMode;
  /** The client apps: one API key each, all in the stage's usage plan. */
  clients: readonly string[];
  /** The key only the dashboard's CloudFront distribution holds, also in the stage's plan. */
  dashboardKey: DashboardApiKey;
  /** The web ACL's rate-based rule: requests per source address per five minutes. */
  wafRequestsPerIpPer5Minutes: number;
  /** Whether to set the account's API Gateway CloudWatch Logs role (see ServiceSettings). */
  cloudWatchRole: boolean;
  accountsDomain?: DomainSettings;
  apiDomain?: DomainSettings;
  hostedZone?: HostedZoneSettings;
}

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

const errorEnvelope = (code: ErrorCode, quotedMessage: string) =>
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

/** `example-app` → `ExampleApp`: a construct id from a client's name. */
const pascalCase = (name: string) =>
  name
    .split('-')
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('');

/**
 * The REST API on stage v1: the stage's usage plan with one API key per client app, access and
 * execution logs (never bodies: they hold passwords and tokens), X-Ray tracing, a web ACL, the
 * gateway's own errors in the envelope, and optionally the two public hosts as custom domains.
 * `addRoute` attaches a route of the route table.
 */
export class ServiceApi extends Construct {
  readonly restApi: apigateway.RestApi;
  readonly usagePlan: apigateway.UsagePlan;
  readonly apiKeys: Map<string, apigateway.IApiKey>;
  readonly webAcl: wafv2.CfnWebACL;
  /** The stage's own address on execute-api, ending in /v1. */
  readonly stageUrl: string;
  /** {base_url}: accounts and webhooks; the custom domain when there is one, else the stage. */
  readonly accountsBaseUrl: string;
  /** {api_base_url}: the general API; the custom domain when there is one, else the stage. */
  readonly apiBaseUrl: string;

  constructor(scope: Construct, id: string, props: ServiceApiProps) {
    super(scope, id);
    const stack = Stack.of(this);
    const accessLogs = new logs.LogGroup(this, 'AccessLogs', {
      // Who called with which key and what they got: kept longer than the functions' logs, for
      // investigating a misused key.
      retention: logs.RetentionDays.THREE_MONTHS,
    });
    this.restApi = new apigateway.RestApi(this, 'RestApi', {
      // API Gateway's metrics are per API name: two stages in one account need names of their
      // own, or each stage's 5xx and latency alarms would count the other's requests too.
      restApiName: stack.stackName,
      description: `Account, OTP and webhook service (${stack.stackName})`,
      endpointTypes: [apigateway.EndpointType.REGIONAL],
      // API Gateway writes logs only through this account-wide role. Retained: another stage's
      // API in the account keeps needing it after this stack is deleted.
      cloudWatchRole: props.cloudWatchRole,
      cloudWatchRoleRemovalPolicy: RemovalPolicy.RETAIN,
      deployOptions: {
        stageName: 'v1',
        tracingEnabled: true,
        // Errors of each method; never the request and response bodies (dataTrace), which hold
        // passwords, codes and tokens.
        loggingLevel: apigateway.MethodLoggingLevel.ERROR,
        dataTraceEnabled: false,
        accessLogDestination: new apigateway.LogGroupLogDestination(accessLogs),
        accessLogFormat: apigateway.AccessLogFormat.custom(
          JSON.stringify({
            requestId: apigateway.AccessLogField.contextRequestId(),
            time: apigateway.AccessLogField.contextRequestTimeEpoch(),
            sourceIp: apigateway.AccessLogField.contextIdentitySourceIp(),
            apiKeyId: apigateway.AccessLogField.contextIdentityApiKeyId(),
            caller: apigateway.AccessLogField.contextIdentityUserArn(),
            method: apigateway.AccessLogField.contextHttpMethod(),
            resourcePath: apigateway.AccessLogField.contextResourcePath(),
            status: apigateway.AccessLogField.contextStatus(),
            responseLength: apigateway.AccessLogField.contextResponseLength(),
            integrationLatency: apigateway.AccessLogField.contextIntegrationLatency(),
            errorType: apigateway.AccessLogField.contextErrorResponseType(),
            wafStatus: apigateway.AccessLogField.contextWafStatus(),
          }),
        ),
      },
    });
    // RestApi always adds an output with a generated name; the stack outputs `ApiUrl` instead.
    this.restApi.node.tryRemoveChild('Endpoint');
    acknowledgeFinding(
      this.restApi,
      'AwsSolutions-APIG2',
      "Requests are validated in each function against the route table's schemas, which answer one detail per bad field in sentences naming it and refuse unknown fields (contract.md); a gateway validator would answer the same 400 less usefully and keep a second copy of every schema.",
    );
    acknowledgeFinding(
      this.restApi,
      'AwsSolutions-APIG4',
      "The service is its own identity provider: user routes are authorised in the function (EdDSA access token plus a live-session check, so logout revokes at once); sign-up, login, OTP and public documents are open by contract; POST /events uses AWS_IAM. Every method also requires an API key of the stage's plan.",
    );
    acknowledgeFinding(
      this.restApi,
      'AwsSolutions-COG4',
      'No Cognito user pool by design: this service issues and revokes its own sessions (contract.md, "Identity and sessions"); a Cognito authorizer could not check that a session is still live.',
    );
    const cloudWatchRole = this.restApi.node.tryFindChild('CloudWatchRole');
    if (cloudWatchRole !== undefined) {
      acknowledgeFinding(
        cloudWatchRole,
        'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
        "The account-wide role through which API Gateway writes the logs of every API in the account and region: AWS's managed policy is the documented one, and narrowing it to this API would stop the logs of the others.",
      );
    }
    // Built from the id, not from `restApi.url`: functions read these addresses, and the stage
    // depends on the functions (through its methods), so it cannot be referenced back.
    this.stageUrl = `https://${this.restApi.restApiId}.execute-api.${stack.region}.${stack.urlSuffix}/v1`;

    for (const { type, status, code } of gatewayErrors) {
      this.restApi.addGatewayResponse(`${type.responseType}Response`, {
        type,
        statusCode: status,
        responseHeaders: { 'Content-Type': "'application/json'" },
        templates: { 'application/json': envelope(type, code) },
      });
    }

    const perMinute = rateLimitPerMode[props.rateLimitMode];
    this.usagePlan = this.restApi.addUsagePlan('UsagePlan', {
      name: `${stack.stackName}-${props.rateLimitMode}`,
      description: `${perMinute} requests per minute per key (${props.rateLimitMode} mode)`,
      // Usage plans have no per-minute quota (DAY is the shortest period), so the limit is a
      // token bucket: the minute's allowance refilled evenly. The burst is a whole minute's
      // allowance because the handler's fixed window lets a client spend it at once.
      throttle: { rateLimit: perMinute / 60, burstLimit: perMinute },
      apiStages: [{ api: this.restApi, stage: this.restApi.deploymentStage }],
    });
    this.apiKeys = new Map(
      props.clients.map((client) => {
        const key = this.restApi.addApiKey(`${pascalCase(client)}Key`, {
          apiKeyName: `${stack.stackName}-${client}`,
          description: `Client app ${client}`,
        });
        this.usagePlan.addApiKey(key);
        return [client, key];
      }),
    );

    this.usagePlan.addApiKey(props.dashboardKey.apiKey);

    this.webAcl = this.protect(props.wafRequestsPerIpPer5Minutes, props.dashboardKey.value);

    const zone =
      props.hostedZone === undefined
        ? undefined
        : route53.HostedZone.fromHostedZoneAttributes(this, 'HostedZone', props.hostedZone);
    this.accountsBaseUrl =
      props.accountsDomain === undefined
        ? this.stageUrl
        : this.addDomain('Accounts', props.accountsDomain, zone);
    this.apiBaseUrl =
      props.apiDomain === undefined
        ? this.stageUrl
        : this.addDomain('General', props.apiDomain, zone);
  }

  /**
   * The stage's web ACL: a rate-based rule per source address (answering 429 in the envelope),
   * then AWS's IP reputation list and common rule set. The common set's 8 KB body-size rule only
   * counts: the service's own limit is 64 KiB (413 from the function).
   *
   * Requests relayed by the dashboard's distribution all come from CloudFront's addresses, so
   * counted by address, every viewer behind one edge would share a limit. Those carry the
   * dashboard's key (`dashboardKeyValue`, a dynamic reference resolved at deploy) and are counted
   * by the viewer's network that the distribution writes (its address, or the /64 of an IPv6
   * viewer: one subscriber); every other request by its own address — IPv4 only, since the
   * stage's regional endpoint has no IPv6 (WAF cannot count an IPv6 address by its prefix; the
   * API's own limits do). The key decides, not the header: a caller that writes the header
   * itself stays counted by its connection.
   */
  private protect(requestsPerIpPer5Minutes: number, dashboardKeyValue: string): wafv2.CfnWebACL {
    const stack = Stack.of(this);
    const visibility = (metricName: string) => ({
      cloudWatchMetricsEnabled: true,
      metricName: `${stack.stackName}-${metricName}`,
      sampledRequestsEnabled: true,
    });
    const managed = (priority: number, name: string, overrides: string[] = []) => ({
      name,
      priority,
      overrideAction: { none: {} },
      statement: {
        managedRuleGroupStatement: {
          vendorName: 'AWS',
          name,
          ruleActionOverrides: overrides.map((rule) => ({
            name: rule,
            actionToUse: { count: {} },
          })),
        },
      },
      visibilityConfig: visibility(name),
    });
    const fromDashboard: wafv2.CfnWebACL.StatementProperty = {
      byteMatchStatement: {
        fieldToMatch: { singleHeader: { Name: 'x-api-key' } },
        positionalConstraint: 'EXACTLY',
        searchString: dashboardKeyValue,
        textTransformations: [{ priority: 0, type: 'NONE' }],
      },
    };
    /** Over `requestsPerIpPer5Minutes` from one address in five minutes: 429 in the envelope. */
    const rateRule = (
      priority: number,
      name: string,
      counted: Omit<wafv2.CfnWebACL.RateBasedStatementProperty, 'limit' | 'evaluationWindowSec'>,
    ): wafv2.CfnWebACL.RuleProperty => ({
      name,
      priority,
      action: {
        block: {
          customResponse: {
            responseCode: 429,
            customResponseBodyKey: 'rateLimited',
            responseHeaders: [{ name: 'retry-after', value: '300' }],
          },
        },
      },
      statement: {
        rateBasedStatement: {
          limit: requestsPerIpPer5Minutes,
          evaluationWindowSec: 300,
          ...counted,
        },
      },
      visibilityConfig: visibility(name),
    });
    const webAcl = new wafv2.CfnWebACL(this, 'WebAcl', {
      scope: 'REGIONAL',
      description: `Protects the API stage of ${stack.stackName}`,
      defaultAction: { allow: {} },
      visibilityConfig: visibility('WebAcl'),
      customResponseBodies: {
        rateLimited: {
          contentType: 'APPLICATION_JSON',
          content: errorEnvelope(
            'rate_limited',
            '"Too many requests from this address; try again in a few minutes"',
          ),
        },
      },
      rules: [
        rateRule(0, 'RequestsPerSourceAddress', {
          aggregateKeyType: 'IP',
          scopeDownStatement: { notStatement: { statement: fromDashboard } },
        }),
        rateRule(1, 'RequestsPerDashboardViewer', {
          aggregateKeyType: 'FORWARDED_IP',
          // Always present on a relayed request; were it not a valid address, the request counts.
          forwardedIpConfig: { headerName: viewerNetworkHeader, fallbackBehavior: 'MATCH' },
          scopeDownStatement: fromDashboard,
        }),
        managed(2, 'AWSManagedRulesAmazonIpReputationList'),
        managed(3, 'AWSManagedRulesCommonRuleSet', ['SizeRestrictions_BODY']),
      ],
    });
    new wafv2.CfnWebACLAssociation(this, 'WebAclAssociation', {
      resourceArn: this.restApi.deploymentStage.stageArn,
      webAclArn: webAcl.attrArn,
    });
    return webAcl;
  }

  /**
   * A custom domain (regional, TLS 1.2) whose `/v1` maps to the stage; with a hosted zone, its
   * certificate (when none is given) and its alias record too. Answers its base address.
   */
  private addDomain(id: string, domain: DomainSettings, zone?: route53.IHostedZone): string {
    const certificate =
      domain.certificateArn === undefined
        ? new acm.Certificate(this, `${id}Certificate`, {
            domainName: domain.domainName,
            validation: acm.CertificateValidation.fromDns(zone),
          })
        : acm.Certificate.fromCertificateArn(this, `${id}Certificate`, domain.certificateArn);
    const domainName = new apigateway.DomainName(this, `${id}Domain`, {
      domainName: domain.domainName,
      certificate,
      endpointType: apigateway.EndpointType.REGIONAL,
      securityPolicy: apigateway.SecurityPolicy.TLS_1_2,
    });
    domainName.addBasePathMapping(this.restApi, {
      basePath: 'v1',
      stage: this.restApi.deploymentStage,
    });
    if (zone !== undefined) {
      new route53.ARecord(this, `${id}Record`, {
        zone,
        recordName: domain.domainName,
        target: route53.RecordTarget.fromAlias(new route53Targets.ApiGatewayDomain(domainName)),
      });
    }
    return `https://${domain.domainName}/v1`;
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
   * The route's method on its path ({param} segments included), proxied to `handler`, requiring
   * an API key of the stage's plan. Only `iam` routes are checked by the gateway (SigV4); `user`
   * routes are open here because the handler checks the Bearer token and that its session is
   * still live.
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
          apiKeyRequired: true,
        },
      );
  }
}
