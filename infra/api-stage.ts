import { createHash } from 'node:crypto';
import { type CfnElement, Lazy, Stack } from 'aws-cdk-lib';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as acm from 'aws-cdk-lib/aws-certificatemanager';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as route53 from 'aws-cdk-lib/aws-route53';
import * as route53Targets from 'aws-cdk-lib/aws-route53-targets';
import * as wafv2 from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import { viewerNetworkHeader } from '../shared/http/caller-address.js';
import { firewallRetryAfterSeconds } from '../shared/http/gateway-answers.js';
import { errorEnvelope } from './service-api.js';
import type { ApiClient, ApiTier, DomainSettings, ServiceSettings } from './settings.js';

export interface ApiStageProps {
  restApi: apigateway.IRestApi;
  /** The API's name, whose stage this is. */
  restApiName: string;
  /**
   * The API resources and methods the service stacks added: the deployment is made again
   * whenever one of them changes, so the stage serves what the service stacks declare.
   */
  methods: () => readonly CfnElement[];
  settings: Pick<
    ServiceSettings,
    | 'apiClients'
    | 'apiTiers'
    | 'wafRequestsPerIpPer5Minutes'
    | 'eventPublishesPerSecond'
    | 'accountsDomain'
    | 'apiDomain'
    | 'hostedZone'
  >;
  /** The key only the dashboard's CloudFront distribution holds: its id and its value. */
  dashboardKey: { keyId: string; value: string };
}

/** `example-app` → `ExampleApp`: a construct id from a client's name. */
export const pascalCase = (name: string) =>
  name
    .split('-')
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('');

/**
 * What callers meet: the deployment of every method the service stacks declared, on stage v1 with
 * access and execution logs (never bodies: they hold passwords and tokens) and X-Ray tracing; a
 * usage plan per tier of client apps with each app's API key, and the dashboard's own; the web
 * ACL; and optionally the two public hosts as custom domains.
 */
export class ApiStage extends Construct {
  readonly stage: apigateway.Stage;
  /** A usage plan per tier, and `dashboard`'s. */
  readonly usagePlans: Map<string, apigateway.UsagePlan>;
  readonly apiKeys: Map<string, apigateway.IApiKey>;
  readonly webAcl: wafv2.CfnWebACL;
  /** The stage's address on execute-api, ending in /v1. */
  readonly stageUrl: string;

  constructor(scope: Construct, id: string, props: ApiStageProps) {
    super(scope, id);
    const stack = Stack.of(this);
    const { settings } = props;

    const deployment = new apigateway.Deployment(this, 'Deployment', {
      api: props.restApi,
      description: `The methods of ${props.restApiName}`,
    });
    // A new deployment, with a logical id of its own, whenever a method or resource of the API
    // changes: what CDK's own RestApi does for the methods it holds.
    deployment.addToLogicalId(
      Lazy.string({
        produce: () =>
          createHash('sha256')
            .update(JSON.stringify(props.methods().map(cloudFormationOf)))
            .digest('hex'),
      }),
    );

    const accessLogs = new logs.LogGroup(this, 'AccessLogs', {
      // Who called with which key and what they got: kept longer than the functions' logs, for
      // investigating a misused key.
      retention: logs.RetentionDays.THREE_MONTHS,
    });
    this.stage = new apigateway.Stage(this, 'Stage', {
      deployment,
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
    });
    this.stageUrl = `https://${props.restApi.restApiId}.execute-api.${stack.region}.${stack.urlSuffix}/v1`;

    this.usagePlans = new Map(
      Object.entries(settings.apiTiers).map(([tier, limits]) => [
        tier,
        this.usagePlan(props.restApi, `${props.restApiName}-${tier}`, tier, limits),
      ]),
    );
    this.apiKeys = new Map(
      settings.apiClients.map((client) => [client.name, this.clientKey(props.restApiName, client)]),
    );
    this.planOf('dashboard').addApiKey(
      apigateway.ApiKey.fromApiKeyId(this, 'DashboardKey', props.dashboardKey.keyId),
    );

    this.webAcl = this.protect(settings, props.dashboardKey.value);

    const zone =
      settings.hostedZone === undefined
        ? undefined
        : route53.HostedZone.fromHostedZoneAttributes(this, 'HostedZone', settings.hostedZone);
    if (settings.accountsDomain !== undefined) {
      this.addDomain(props.restApi, 'Accounts', settings.accountsDomain, zone);
    }
    if (settings.apiDomain !== undefined) {
      this.addDomain(props.restApi, 'General', settings.apiDomain, zone);
    }
  }

  private planOf(tier: string): apigateway.UsagePlan {
    const plan = this.usagePlans.get(tier);
    if (plan === undefined) throw new Error(`No usage plan for the tier ${tier}`);
    return plan;
  }

  /**
   * A tier's plan: every key in it may make `ratePerSecond` requests a second, refilled evenly,
   * `burst` at once, and `quotaPerDay` a day. The limits are per key, that is per client app:
   * sized for an app's whole traffic, not one user's (the handlers count each user).
   */
  private usagePlan(
    restApi: apigateway.IRestApi,
    name: string,
    tier: string,
    limits: ApiTier,
  ): apigateway.UsagePlan {
    return new apigateway.UsagePlan(this, `${pascalCase(tier)}Plan`, {
      name,
      description: `Client apps of the ${tier} tier: ${limits.ratePerSecond} requests/s per app, bursts of ${limits.burst}${limits.quotaPerDay === undefined ? '' : `, ${limits.quotaPerDay} a day`}`,
      throttle: { rateLimit: limits.ratePerSecond, burstLimit: limits.burst },
      ...(limits.quotaPerDay === undefined
        ? {}
        : { quota: { limit: limits.quotaPerDay, period: apigateway.Period.DAY } }),
      apiStages: [{ api: restApi, stage: this.stage }],
    });
  }

  private clientKey(restApiName: string, client: ApiClient): apigateway.IApiKey {
    const key = new apigateway.ApiKey(this, `${pascalCase(client.name)}Key`, {
      apiKeyName: `${restApiName}-${client.name}`,
      description: `Client app ${client.name} (${client.tier} tier)`,
    });
    this.planOf(client.tier).addApiKey(key);
    return key;
  }

  /**
   * The stage's web ACL: rate-based rules per source address (answering 429 in the envelope),
   * then AWS's IP reputation list and common rule set. The common set's 8 KB body-size rule only
   * counts: the service's own limit is 64 KiB (413 from the function).
   *
   * Three counts, each request in one. Requests relayed by the dashboard's distribution all come
   * from CloudFront's addresses, so counted by address, every viewer behind one edge would share a
   * limit: those carry the dashboard's key (`dashboardKeyValue`, a dynamic reference resolved at
   * deploy) and are counted by the viewer's network that the distribution writes (its address, or
   * the /64 of an IPv6 viewer: one subscriber). SigV4-signed
   * event publications (`POST /v1/events`) come from a platform's backends, a few addresses at
   * hundreds a second: counted on their own, at `eventPublishesPerSecond`, and not in the
   * per-user limit they would exhaust in seconds (a forged signature gains nothing: API Gateway
   * refuses it, and the publication count still holds). Every other request by its own address —
   * IPv4 only, since the stage's regional endpoint has no IPv6 (WAF cannot count an IPv6 address
   * by its prefix; the API's own limits do).
   * The key decides, not the header: a caller that writes the header itself stays counted by its
   * connection.
   */
  private protect(settings: ApiStageProps['settings'], dashboardKeyValue: string): wafv2.CfnWebACL {
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
    const exactly = (
      fieldToMatch: wafv2.CfnWebACL.FieldToMatchProperty,
      searchString: string,
      positionalConstraint = 'EXACTLY',
    ): wafv2.CfnWebACL.StatementProperty => ({
      byteMatchStatement: {
        fieldToMatch,
        positionalConstraint,
        searchString,
        textTransformations: [{ priority: 0, type: 'NONE' }],
      },
    });
    const fromDashboard = exactly({ singleHeader: { Name: 'x-api-key' } }, dashboardKeyValue);
    const signedPublication: wafv2.CfnWebACL.StatementProperty = {
      andStatement: {
        statements: [
          exactly({ method: {} }, 'POST'),
          exactly({ uriPath: {} }, '/v1/events'),
          exactly({ singleHeader: { Name: 'authorization' } }, 'AWS4-HMAC-SHA256 ', 'STARTS_WITH'),
        ],
      },
    };
    /** Over `limit` from one address in five minutes: 429 in the envelope. */
    const rateRule = (
      priority: number,
      name: string,
      limit: number,
      counted: Omit<wafv2.CfnWebACL.RateBasedStatementProperty, 'limit' | 'evaluationWindowSec'>,
    ): wafv2.CfnWebACL.RuleProperty => ({
      name,
      priority,
      action: {
        block: {
          customResponse: {
            responseCode: 429,
            customResponseBodyKey: 'rateLimited',
            responseHeaders: [{ name: 'retry-after', value: String(firewallRetryAfterSeconds) }],
          },
        },
      },
      statement: { rateBasedStatement: { limit, evaluationWindowSec: 300, ...counted } },
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
        rateRule(0, 'RequestsPerSourceAddress', settings.wafRequestsPerIpPer5Minutes, {
          aggregateKeyType: 'IP',
          scopeDownStatement: {
            notStatement: {
              statement: { orStatement: { statements: [fromDashboard, signedPublication] } },
            },
          },
        }),
        rateRule(1, 'RequestsPerDashboardViewer', settings.wafRequestsPerIpPer5Minutes, {
          aggregateKeyType: 'FORWARDED_IP',
          // Always present on a relayed request; were it not a valid address, the request counts.
          forwardedIpConfig: { headerName: viewerNetworkHeader, fallbackBehavior: 'MATCH' },
          scopeDownStatement: fromDashboard,
        }),
        rateRule(2, 'EventPublicationsPerSourceAddress', 300 * settings.eventPublishesPerSecond, {
          aggregateKeyType: 'IP',
          scopeDownStatement: signedPublication,
        }),
        managed(3, 'AWSManagedRulesAmazonIpReputationList'),
        managed(4, 'AWSManagedRulesCommonRuleSet', ['SizeRestrictions_BODY']),
      ],
    });
    new wafv2.CfnWebACLAssociation(this, 'WebAclAssociation', {
      resourceArn: this.stage.stageArn,
      webAclArn: webAcl.attrArn,
    });
    return webAcl;
  }

  /**
   * A custom domain (regional, TLS 1.2) whose `/v1` maps to the stage; with a hosted zone, its
   * certificate (when none is given) and its alias record too.
   */
  private addDomain(
    restApi: apigateway.IRestApi,
    id: string,
    domain: DomainSettings,
    zone?: route53.IHostedZone,
  ): void {
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
    domainName.addBasePathMapping(restApi, { basePath: 'v1', stage: this.stage });
    if (zone !== undefined) {
      new route53.ARecord(this, `${id}Record`, {
        zone,
        recordName: domain.domainName,
        target: route53.RecordTarget.fromAlias(new route53Targets.ApiGatewayDomain(domainName)),
      });
    }
  }
}

/** An element as CloudFormation receives it, in its own stack. */
function cloudFormationOf(element: CfnElement): unknown {
  // `_toCloudFormation` is how CDK renders an element (and what its own RestApi hashes into the
  // deployment's logical id); resolved in the element's stack, references read as written there.
  const rendered = (element as unknown as { _toCloudFormation(): unknown })._toCloudFormation();
  return Stack.of(element).resolve(rendered);
}
