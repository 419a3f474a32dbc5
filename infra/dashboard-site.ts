import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  AssetHashType,
  CfnOutput,
  CrossStackReferences,
  DefaultStackSynthesizer,
  DockerImage,
  Duration,
  ReferenceStrength,
  RemovalPolicy,
  Stack,
  Token,
} from 'aws-cdk-lib';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as acm from 'aws-cdk-lib/aws-certificatemanager';
import * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import * as origins from 'aws-cdk-lib/aws-cloudfront-origins';
import * as route53 from 'aws-cdk-lib/aws-route53';
import * as route53Targets from 'aws-cdk-lib/aws-route53-targets';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as s3deploy from 'aws-cdk-lib/aws-s3-deployment';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import {
  buildDashboard,
  cacheControl,
  contentTypes,
  pageHeaders,
} from '../shared/dashboard/build.js';
import { viewerAddressHeader, viewerNetworkHeader } from '../shared/http/caller-address.js';
import { acknowledgeFinding } from './acknowledge-finding.js';
import { type DashboardCall, dashboardCalls } from './dashboard-calls.js';
import type { DomainSettings, HostedZoneSettings } from './settings.js';

/**
 * The API key only the stage's CloudFront distribution holds: the dashboard's calls go through the
 * distribution, which adds it as `x-api-key` (a browser page cannot keep a key secret). Its value is
 * generated into a Secrets Manager secret and reaches the key, the distribution's origin header
 * and the web ACL as a CloudFormation dynamic reference: the template holds only the reference,
 * CloudFormation resolves it at deploy time. A new `generation` is a new secret, so every user of
 * the value is updated (dynamic references are resolved only when their resource changes).
 */
export class DashboardApiKey extends Construct {
  readonly apiKey: apigateway.ApiKey;
  /** `{{resolve:secretsmanager:…}}`: never the value itself. */
  readonly value: string;

  constructor(scope: Construct, id: string, props: { generation: number; name: string }) {
    super(scope, id);
    const secret = new secretsmanager.Secret(this, `Value${props.generation}`, {
      description: `API key value of the developer dashboard's CloudFront distribution (${props.name}), generation ${props.generation}`,
      // API Gateway takes 20 to 128 characters; the web ACL compares it byte for byte.
      generateSecretString: { excludePunctuation: true, passwordLength: 64 },
    });
    acknowledgeFinding(
      secret,
      'AwsSolutions-SMG4',
      'Rotated by deploying with a bumped dashboardApiKeyGeneration, which creates a new secret and updates the API key, the distribution and the web ACL together; a rotation function would change the value without the deploy that dynamic references need to pick it up.',
    );
    this.value = secret.secretValue.unsafeUnwrap();
    // Not attached to the stage here (the stage is deployed after the functions that read its
    // id): the edge stack's usage plan links it to the stage.
    this.apiKey = new apigateway.ApiKey(this, `Key${props.generation}`, {
      apiKeyName: `${props.name}-dashboard`,
      description: 'Developer dashboard: held only by the CloudFront distribution',
      value: this.value,
    });
    // The other stacks read the key's id and value as outputs of this one (Fn::GetStackOutput),
    // not as exports, which would forbid the replacement a rotation is. Both construct ids hold
    // the generation, so a rotation renames the outputs, changes the readers' templates, and
    // CloudFormation reads the new values there.
    for (const replaced of [secret, this.apiKey]) {
      CrossStackReferences.of(replaced).produce(ReferenceStrength.WEAK);
    }
  }
}

const isParameter = (segment: string) => /^\{\w+\}$/.test(segment);
const escaped = (segment: string) => segment.replace(/[.*+?^$()|[\]\\]/g, '\\$&');

/**
 * A route's path as a pattern of the request URIs it serves: `{id}` is one id-shaped segment, and
 * not a word that a sibling of `paths` has in its place (`/auth/passkeys/{id}` is not
 * `/auth/passkeys/login`: a credential id has no prefix that tells it apart).
 */
const uriPattern = (path: string, paths: readonly string[]): string => {
  const segments = path.split('/');
  return `/v1${segments
    .map((segment, index) => {
      if (!isParameter(segment)) return escaped(segment);
      const before = segments.slice(0, index).join('/');
      const siblings = new Set(
        paths
          .map((other) => other.split('/'))
          .filter((other) => other.slice(0, index).join('/') === before)
          .map((other) => other[index] ?? '')
          .filter((other) => other !== '' && !isParameter(other)),
      );
      const notSibling =
        siblings.size === 0 ? '' : `(?!(?:${[...siblings].map(escaped).join('|')})(?:/|$))`;
      return `${notSibling}[A-Za-z0-9_-]+`;
    })
    .join('/')}`;
};

/** The answer CloudFront gives a request the dashboard never makes: the API's 404, in its envelope. */
const notRelayedBody = JSON.stringify({
  success: false,
  error: {
    code: 'not_found',
    message:
      'The dashboard does not call this route, so its address does not relay it: call the API with your own key',
    details: [],
  },
});

/**
 * The viewer-request function of `/v1/*`:
 * - relays only the calls the dashboard makes (`dashboardCalls`: method and route, ids as
 *   id-shaped segments that name no sibling route), answering anything else with a 404 in the API's envelope, so the
 *   dashboard's key opens nothing but the dashboard's own calls;
 * - writes the address of the connection CloudFront accepted into `viewerAddressHeader`, and its
 *   network — the address for IPv4, the first address of its /64 for IPv6 — into
 *   `viewerNetworkHeader`, over anything the viewer sent under those names. The API trusts the
 *   address only under the dashboard's key; the web ACL counts the network;
 * - drops a viewer's own `x-api-key` (the origin header replaces it anyway).
 * Written in the JavaScript of CloudFront Functions (runtime 2.0): no library, plain loops.
 */
export function viewerRequestFunctionCode(calls: readonly DashboardCall[]): string {
  const relayed = new Map<string, string[]>();
  const paths = calls.map((call) => call.path);
  for (const call of calls) {
    relayed.set(call.method, [...(relayed.get(call.method) ?? []), uriPattern(call.path, paths)]);
  }
  const patterns = [...relayed]
    .map(
      ([method, paths]) =>
        `  ${method}: new RegExp(${JSON.stringify(`^(?:${paths.join('|')})$`)}),`,
    )
    .join('\n');
  return `var relayed = {
${patterns}
};
function networkOf(ip) {
  if (ip.indexOf(':') < 0) return ip;
  var halves = ip.split('::');
  var groups = halves[0] === '' ? [] : halves[0].split(':');
  if (halves.length > 1) {
    var tail = halves[1] === '' ? [] : halves[1].split(':');
    var missing = 8 - groups.length - tail.length;
    for (var i = 0; i < missing; i++) groups.push('0');
    groups = groups.concat(tail);
  }
  return groups.slice(0, 4).join(':') + '::';
}
async function handler(event) {
  var request = event.request;
  var pattern = relayed[request.method];
  if (pattern === undefined || !pattern.test(request.uri)) {
    return {
      statusCode: 404,
      statusDescription: 'Not Found',
      headers: {
        'content-type': { value: 'application/json; charset=utf-8' },
        'cache-control': { value: 'no-store' }
      },
      body: { encoding: 'text', data: ${JSON.stringify(notRelayedBody)} }
    };
  }
  request.headers['${viewerAddressHeader}'] = { value: event.viewer.ip };
  request.headers['${viewerNetworkHeader}'] = { value: networkOf(event.viewer.ip) };
  delete request.headers['x-api-key'];
  return request;
}`;
}

/**
 * A response headers policy carrying exactly `headers` (build.ts `pageHeaders`): the security
 * headers CloudFront knows by name go in its security settings (it refuses them as custom
 * headers), the rest as custom headers. Every value overrides what the origin sent.
 */
export function responseHeadersOf(
  headers: Record<string, string>,
): Pick<
  cloudfront.ResponseHeadersPolicyProps,
  'securityHeadersBehavior' | 'customHeadersBehavior'
> {
  const security: {
    -readonly [Key in keyof cloudfront.ResponseSecurityHeadersBehavior]: cloudfront.ResponseSecurityHeadersBehavior[Key];
  } = {};
  const custom: cloudfront.ResponseCustomHeader[] = [];
  const unsupported = (name: string, value: string) =>
    new Error(`The response headers policy cannot express ${name}: ${value}`);
  for (const [name, value] of Object.entries(headers)) {
    switch (name) {
      case 'content-security-policy':
        security.contentSecurityPolicy = { contentSecurityPolicy: value, override: true };
        break;
      case 'strict-transport-security': {
        const match = /^max-age=(\d+)(; includeSubDomains)?(; preload)?$/.exec(value);
        if (match === null) throw unsupported(name, value);
        security.strictTransportSecurity = {
          accessControlMaxAge: Duration.seconds(Number(match[1])),
          includeSubdomains: match[2] !== undefined,
          preload: match[3] !== undefined,
          override: true,
        };
        break;
      }
      case 'x-content-type-options':
        if (value !== 'nosniff') throw unsupported(name, value);
        security.contentTypeOptions = { override: true };
        break;
      case 'x-frame-options':
        if (value !== 'DENY' && value !== 'SAMEORIGIN') throw unsupported(name, value);
        security.frameOptions = {
          frameOption: cloudfront.HeadersFrameOption[value],
          override: true,
        };
        break;
      case 'referrer-policy': {
        const policy = Object.values(cloudfront.HeadersReferrerPolicy).find(
          (known) => known === value,
        );
        if (policy === undefined) throw unsupported(name, value);
        security.referrerPolicy = { referrerPolicy: policy, override: true };
        break;
      }
      default:
        custom.push({ header: name, value, override: true });
    }
  }
  return {
    securityHeadersBehavior: security,
    customHeadersBehavior: { customHeaders: custom },
  };
}

/**
 * The built files go to the bucket in groups, one BucketDeployment each, because S3 keeps one
 * Content-Type and Cache-Control per object and a deployment sets them for all it uploads (the
 * reference page, `docs`, has no extension to guess a type from). Assets are never pruned: a page
 * loaded before a deploy keeps finding the assets it names. Pages go last and invalidate their
 * paths, so no page names an asset that is not there yet.
 */
export const siteFileGroups = [
  {
    id: 'Scripts',
    include: ['assets/*.js'],
    contentType: contentTypes.js,
    cacheControl: cacheControl.asset,
  },
  {
    id: 'Styles',
    include: ['assets/*.css'],
    contentType: contentTypes.css,
    cacheControl: cacheControl.asset,
  },
  {
    id: 'Pages',
    include: ['index.html', 'docs'],
    contentType: contentTypes.html,
    cacheControl: cacheControl.page,
  },
] as const;

export interface DashboardSiteProps {
  /** The REST API whose stage `/v1` the distribution relays `/v1/*` to. */
  restApi: apigateway.IRestApi;
  /** The key the distribution adds to every `/v1/*` request. */
  apiKey: DashboardApiKey;
  /** `dashboardDomainName` + `dashboardCertificateArn` (us-east-1). */
  domain?: DomainSettings;
  hostedZone?: HostedZoneSettings;
}

/**
 * The developer dashboard and the API reference on AWS (docs/dashboard.md, "On
 * AWS"): one CloudFront distribution serving the dashboard's private bucket through origin
 * access control at `/` and `/docs`, and relaying `/v1/*` to the API stage with the dashboard's
 * key, so the page calls its own origin (no CORS) and never holds a key. HTTPS only, the pages'
 * security headers from build.ts, access logs for the bucket and the distribution.
 */
export class DashboardSite extends Construct {
  readonly distribution: cloudfront.Distribution;
  /** Where the dashboard is: `https://<host>/`. */
  readonly url: string;

  constructor(scope: Construct, id: string, props: DashboardSiteProps) {
    super(scope, id);
    const stack = Stack.of(this);

    // CloudFront's standard logs are written with object ACLs, hence BUCKET_OWNER_PREFERRED.
    // Viewers' addresses are personal data: kept as long as the API's access log, then deleted.
    const logBucket = new s3.Bucket(this, 'Logs', {
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_PREFERRED,
      lifecycleRules: [{ expiration: Duration.days(90) }],
      removalPolicy: RemovalPolicy.RETAIN,
    });
    acknowledgeFinding(
      logBucket,
      'AwsSolutions-S1',
      'This is the bucket the site bucket and the distribution write their access logs to; logging it into itself would log every log delivery, without end.',
    );
    const siteBucket = new s3.Bucket(this, 'Site', {
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      serverAccessLogsBucket: logBucket,
      serverAccessLogsPrefix: 'site/',
      // Rebuilt by every deploy; kept with the stack's logs and table when the stack is deleted.
      removalPolicy: RemovalPolicy.RETAIN,
    });

    // Origin access control: CloudFront signs its requests, and the bucket policy lets only this
    // distribution read; the bucket itself stays private (no website endpoint, no public access).
    const siteOrigin = origins.S3BucketOrigin.withOriginAccessControl(siteBucket);
    const page = (headers: Record<string, string>, name: string): cloudfront.BehaviorOptions => ({
      origin: siteOrigin,
      // Pages are fetched by typing an address: a plain-HTTP visit is sent to HTTPS (and HSTS
      // keeps it there); nothing but GET and HEAD reaches the bucket.
      viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
      allowedMethods: cloudfront.AllowedMethods.ALLOW_GET_HEAD,
      // Honours each object's Cache-Control: pages revalidate, fingerprinted assets stay a year.
      cachePolicy: cloudfront.CachePolicy.CACHING_OPTIMIZED,
      responseHeadersPolicy: new cloudfront.ResponseHeadersPolicy(this, `${name}Headers`, {
        comment: `${name} page of ${stack.stackName}: the headers of shared/dashboard/build.ts`,
        ...responseHeadersOf(headers),
      }),
      compress: true,
    });

    const api = new origins.HttpOrigin(
      `${props.restApi.restApiId}.execute-api.${stack.region}.${stack.urlSuffix}`,
      {
        protocolPolicy: cloudfront.OriginProtocolPolicy.HTTPS_ONLY,
        originSslProtocols: [cloudfront.OriginSslPolicy.TLS_V1_2],
        customHeaders: { 'x-api-key': props.apiKey.value },
      },
    );
    const viewerAddress = new cloudfront.Function(this, 'ViewerAddress', {
      comment: `Relays the dashboard's own calls only, with the viewer's address (${stack.stackName})`,
      runtime: cloudfront.FunctionRuntime.JS_2_0,
      code: cloudfront.FunctionCode.fromInline(viewerRequestFunctionCode(dashboardCalls())),
    });

    const { domain } = props;
    const certificate =
      domain?.certificateArn === undefined
        ? undefined
        : acm.Certificate.fromCertificateArn(this, 'Certificate', domain.certificateArn);
    this.distribution = new cloudfront.Distribution(this, 'Distribution', {
      comment: `Developer dashboard and API reference of ${stack.stackName}`,
      defaultRootObject: 'index.html',
      defaultBehavior: page(pageHeaders.dashboard, 'Dashboard'),
      additionalBehaviors: {
        '/docs': page(pageHeaders.reference, 'Reference'),
        '/v1/*': {
          origin: api,
          // An API call sent over plain HTTP has already exposed its body (a password, a code):
          // refused, not redirected.
          viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.HTTPS_ONLY,
          // CloudFront's method sets are coarse: the viewer-request function refuses every
          // method and route the dashboard does not call.
          allowedMethods: cloudfront.AllowedMethods.ALLOW_ALL,
          // Never cached; every viewer header but Host (Authorization, Content-Type, the query)
          // goes to the API, which answers with its own security and caching headers.
          cachePolicy: cloudfront.CachePolicy.CACHING_DISABLED,
          originRequestPolicy: cloudfront.OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
          // CloudFront compresses only what a caching policy lets it; the API's answers are small.
          compress: false,
          functionAssociations: [
            { function: viewerAddress, eventType: cloudfront.FunctionEventType.VIEWER_REQUEST },
          ],
        },
      },
      httpVersion: cloudfront.HttpVersion.HTTP2_AND_3,
      // Only a distribution with its own certificate can set it (see the CFR4 note below).
      ...(domain === undefined || certificate === undefined
        ? {}
        : {
            certificate,
            domainNames: [domain.domainName],
            minimumProtocolVersion: cloudfront.SecurityPolicyProtocol.TLS_V1_2_2021,
          }),
      enableLogging: true,
      logBucket,
      logFilePrefix: 'cloudfront/',
    });
    acknowledgeFinding(
      this.distribution,
      'AwsSolutions-CFR1',
      'A developer tool for client developers wherever they are: no country is refused. What costs money (SMS) is limited by country in the API itself (smsAllowedCountries).',
    );
    acknowledgeFinding(
      this.distribution,
      'AwsSolutions-CFR2',
      'Every /v1 request the distribution relays passes the stage’s regional web ACL, which counts each dashboard viewer by the address CloudFront writes (RequestsPerDashboardViewer); the rest is public, read-only static files. A CloudFront web ACL must be created in us-east-1, outside this regional stack.',
    );
    if (certificate === undefined) {
      acknowledgeFinding(
        this.distribution,
        'AwsSolutions-CFR4',
        'Without dashboardDomainName the distribution answers on its own *.cloudfront.net name with CloudFront’s default certificate, whose policy CloudFront fixes; with a domain and its certificate the stack sets TLS 1.2 (TLSv1.2_2021) as the minimum.',
      );
    }

    const host = props.domain?.domainName ?? this.distribution.distributionDomainName;
    this.url = `https://${host}/`;
    // The functions that email read the address as an output of this stack, not an export, so
    // that replacing the distribution stays one deploy (as with the key above).
    CrossStackReferences.of(this.distribution).produce(ReferenceStrength.WEAK);
    if (props.domain !== undefined && props.hostedZone !== undefined) {
      const zone = route53.HostedZone.fromHostedZoneAttributes(this, 'Zone', props.hostedZone);
      const target = route53.RecordTarget.fromAlias(
        new route53Targets.CloudFrontTarget(this.distribution),
      );
      new route53.ARecord(this, 'Alias', { zone, recordName: props.domain.domainName, target });
      new route53.AaaaRecord(this, 'AliasV6', {
        zone,
        recordName: props.domain.domainName,
        target,
      });
    }

    this.deployFiles(siteBucket);

    new CfnOutput(stack, 'DashboardUrl', {
      description: 'The developer dashboard; the API reference is at /docs of the same host',
      value: this.url,
    });
    new CfnOutput(stack, 'DashboardApiKeyId', {
      description:
        'The key CloudFront adds to the dashboard’s API calls: never hand it to a client app',
      value: props.apiKey.apiKey.keyId,
    });
  }

  /**
   * Builds the dashboard at synth time with the project's esbuild (no Docker, no network) into a
   * local asset, and uploads it in `siteFileGroups`.
   */
  private deployFiles(bucket: s3.Bucket): void {
    const files = s3deploy.Source.asset(dashboardSources, {
      // The hash of what was built: a new dependency version changes it too.
      assetHashType: AssetHashType.OUTPUT,
      bundling: {
        // Never used: local bundling always succeeds, and CDK asks for an image regardless.
        image: DockerImage.fromRegistry('none'),
        local: {
          tryBundle(outputDir) {
            for (const file of buildDashboard()) {
              const target = join(outputDir, file.path);
              mkdirSync(dirname(target), { recursive: true });
              writeFileSync(target, file.body);
            }
            return true;
          },
        },
      },
    });
    const deploy = (group: (typeof siteFileGroups)[number]) =>
      new s3deploy.BucketDeployment(this, `${group.id}Deployment`, {
        sources: [files],
        destinationBucket: bucket,
        exclude: ['*'],
        include: [...group.include],
        contentType: group.contentType,
        cacheControl: [s3deploy.CacheControl.fromString(group.cacheControl)],
        prune: group.cacheControl === cacheControl.page,
        ...(group.cacheControl === cacheControl.page
          ? { distribution: this.distribution, distributionPaths: ['/', '/index.html', '/docs'] }
          : {}),
      });
    const assets = siteFileGroups.filter((group) => group.cacheControl === cacheControl.asset);
    const pages = siteFileGroups.filter((group) => group.cacheControl === cacheControl.page);
    const assetDeployments = assets.map(deploy);
    for (const page of pages.map(deploy)) page.node.addDependency(...assetDeployments);
    acknowledgeDeploymentFindings(Stack.of(this), bucket);
  }
}

/** The dashboard's sources: what the asset is built from. */
const dashboardSources = fileURLToPath(new URL('../shared/dashboard/', import.meta.url));

/**
 * BucketDeployment runs one Lambda function per stack (CDK's own custom resource, a singleton at
 * the stack's root) that copies the built files from the CDK asset bucket into the site bucket
 * during a deploy; its role and runtime are CDK's.
 */
function acknowledgeDeploymentFindings(stack: Stack, siteBucket: s3.Bucket): void {
  const handler = stack.node.children.find((child) =>
    child.node.id.startsWith('Custom::CDKBucketDeployment'),
  );
  if (handler === undefined) throw new Error('No BucketDeployment handler in the stack');
  acknowledgeFinding(
    handler,
    'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
    'CDK’s BucketDeployment handler writes its own logs with AWS’s managed basic execution policy; it runs only while a deploy copies the dashboard’s files.',
  );
  acknowledgeFinding(
    handler,
    'AwsSolutions-L1',
    'The runtime of CDK’s BucketDeployment handler is chosen by aws-cdk-lib and moves with it; the handler runs only during a deploy, on files this stack built.',
  );
  const qualifier: string =
    stack.node.tryGetContext('@aws-cdk/core:bootstrapQualifier') ??
    DefaultStackSynthesizer.DEFAULT_QUALIFIER;
  // As cdk-nag writes them: the pseudo parameter, or the value when the CLI resolved it.
  const region = Token.isUnresolved(stack.region) ? '<AWS::Region>' : stack.region;
  const account = Token.isUnresolved(stack.account) ? '<AWS::AccountId>' : stack.account;
  const site = stack.getLogicalId(siteBucket.node.defaultChild as s3.CfnBucket);
  for (const grant of [
    'Action::s3:GetObject*',
    'Action::s3:GetBucket*',
    'Action::s3:List*',
    'Action::s3:DeleteObject*',
    'Action::s3:Abort*',
    `Resource::arn:<AWS::Partition>:s3:::cdk-${qualifier}-assets-${account}-${region}/*`,
    `Resource::<${site}.Arn>/*`,
    'Resource::*',
  ]) {
    acknowledgeFinding(
      handler,
      `AwsSolutions-IAM5[${grant}]`,
      'CDK’s BucketDeployment grants: read the built files from the CDK asset bucket, sync them into the site bucket (put, delete, abort uploads on its objects only), and create and read CloudFront invalidations, which have no resource-level permissions.',
    );
  }
}
