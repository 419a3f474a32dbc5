import type { Construct } from 'constructs';
import { invalidOrigins, type RateLimitMode, rateLimitPerMode } from '../shared/config.js';

/** A custom domain of one of the two public hosts. */
export interface DomainSettings {
  /** E.g. `accounts.example.com`. */
  domainName: string;
  /**
   * An ACM certificate covering the name, in the stack's region (regional endpoint).
   * @default one is requested and validated through `hostedZone`
   */
  certificateArn: string | undefined;
}

/**
 * The usage plan of a tier of client apps: what API Gateway lets one app's key do, whatever its
 * users (the handlers' per-client limit counts each user's address within it).
 */
export interface ApiTier {
  /** Requests per second, refilled evenly (the plan's throttle `rateLimit`). */
  ratePerSecond: number;
  /** Requests at once above the rate (`burstLimit`). */
  burst: number;
  /** Requests per UTC day, a cost cap for a leaked key; undefined: none. */
  quotaPerDay: number | undefined;
}

/** A client app and the tier of its usage plan. */
export interface ApiClient {
  name: string;
  tier: string;
}

/**
 * The tiers every stage has, sized for an app's whole traffic (docs/deployment.md, "Three layers
 * of limits"), by the stage's rate-limit mode; `apiTiers` in cdk.json replaces any of them or adds
 * others. `dashboard` is the plan of the developer dashboard's own key, shared by its viewers.
 */
export const defaultApiTiers: Record<RateLimitMode, Record<string, ApiTier>> = {
  test: {
    standard: { ratePerSecond: 20, burst: 40, quotaPerDay: 200_000 },
    backend: { ratePerSecond: 50, burst: 100, quotaPerDay: 1_000_000 },
    dashboard: { ratePerSecond: 10, burst: 20, quotaPerDay: 50_000 },
  },
  production: {
    standard: { ratePerSecond: 500, burst: 1_000, quotaPerDay: 25_000_000 },
    backend: { ratePerSecond: 1_000, burst: 2_000, quotaPerDay: 80_000_000 },
    dashboard: { ratePerSecond: 50, burst: 100, quotaPerDay: 2_000_000 },
  },
};

/** How a deploy moves traffic to new function versions (CodeDeploy). */
export type TrafficShifting = 'canary' | 'linear' | 'all-at-once';

/** The Route 53 zone that holds the custom domains. */
export interface HostedZoneSettings {
  hostedZoneId: string;
  zoneName: string;
}

/**
 * The deployment's choices, read from CDK context once and validated at synth time, so a typo
 * fails `cdk synth` instead of a cold start.
 *
 * A value is looked up first in the context itself (`-c key=value` on the command line, for one
 * command), then in the block of the chosen stage (`stages.<stage>` in cdk.json), then falls back
 * to its default.
 */
export interface ServiceSettings {
  /**
   * The stage (`stage`): names the stack (`AccountOtpWebhookService-<stage>`), and so its table,
   * queues, secrets and usage plan, so several stages deploy side by side in one account.
   */
  stage: string;
  /**
   * Sender address of all email (`emailFrom`). Its address or its domain must be a verified SES
   * identity in the deployment region.
   */
  emailFrom: string;
  /**
   * SMS sender id (`smsSenderId`): 1 to 11 letters/digits, honoured only in countries that
   * support sender ids.
   * @default none (the carrier's default)
   */
  smsSenderId: string | undefined;
  /**
   * ISO 3166 alpha-2 countries SMS may be sent to (`smsAllowedCountries`, comma-separated):
   * required, the defence against SMS pumping (docs/otp.md, "Decisions").
   */
  smsAllowedCountries: string[];
  /** Texts the whole stage may send in one hour (`smsMaxPerHour`): required, SMS spend's cap. */
  smsMaxPerHour: number;
  /**
   * The last share of `smsMaxPerHour`, in percent, that generic codes may not take: kept for
   * sign-in and verification texts (`smsReservedPercent`, 0 to 90).
   * @default 10
   */
  smsReservedPercent: number;
  /**
   * Distinct numbers one account may have generic codes texted to in an hour
   * (`genericSmsNumbersPerHour`). @default 5
   */
  genericSmsNumbersPerHour: number;
  /** Generic codes one account may have texted in a UTC day (`genericSmsPerDay`). @default 20 */
  genericSmsPerDay: number;
  /**
   * SNS's month-to-date SMS spend, in whole US dollars, past which an alarm fires
   * (`smsMonthlySpendAlarmUsd`): required, and below the account's SNS monthly spend limit,
   * where SNS stops texting altogether (docs/operations.md, "SMS spend").
   */
  smsMonthlySpendAlarmUsd: number;
  /**
   * Hours without a single signup after which an alarm fires (`signupDroughtHours`, 1 to 168):
   * a broken signup path is otherwise silent, since nobody who fails to sign up reports it.
   * @default 24
   */
  signupDroughtHours: number;
  /**
   * The per-client limit of the API handlers, per API key and caller address (`rateLimitMode`):
   * test 100/min, production 1,000/min; and which default tiers the usage plans have.
   * @default 'test'
   */
  rateLimitMode: RateLimitMode;
  /**
   * The client apps of the stage (`apiClients`, comma-separated `name` or `name:tier`): each gets
   * its own API key, in the usage plan of its tier (default `standard`). At least one, since every
   * method requires a key.
   */
  apiClients: ApiClient[];
  /**
   * The tiers' usage plans (`apiTiers`: `{ "<tier>": { "ratePerSecond", "burst", "quotaPerDay" } }`,
   * a tier given replacing the default of that name).
   * @default defaultApiTiers of the rate-limit mode
   */
  apiTiers: Record<string, ApiTier>;
  /**
   * Signed event publications (`POST /v1/events`, SigV4) one source address may make per second
   * (`eventPublishesPerSecond`): the web ACL's rule for them, and the per-client limit of the
   * publishing function, instead of the per-user ones a publishing backend would run into.
   * @default 50 (test), 1,000 (production)
   */
  eventPublishesPerSecond: number;
  /**
   * How a deploy shifts traffic to the new version of each function (`trafficShifting`):
   * `canary` (10 % for 5 minutes, then all), `linear` (10 % more each minute), or `all-at-once`;
   * any of the area's deploy alarms rolls it back.
   * @default 'canary'
   */
  trafficShifting: TrafficShifting;
  /**
   * The AWS account and region of the stage (`account`, `region`): one account per stage keeps a
   * stage's load, quotas and SES and SNS reputation its own.
   * @default the CLI's credentials (CDK_DEFAULT_ACCOUNT, CDK_DEFAULT_REGION); none offline
   */
  account: string | undefined;
  region: string | undefined;
  /**
   * Reserved concurrency of each inbound receiver (`receiverReservedConcurrency`): a cost guard
   * against floods on the public Function URLs.
   * @default 10
   */
  receiverReservedConcurrency: number;
  /**
   * Requests one source address may make in five minutes before the web ACL answers 429
   * (`wafRequestsPerIpPer5Minutes`), signed event publications apart.
   * @default ten minutes of the handlers' per-client limit: 1,000 (test), 10,000 (production),
   * room for the users of two client apps behind one address
   */
  wafRequestsPerIpPer5Minutes: number;
  /**
   * Whether this stack sets the account's API Gateway CloudWatch Logs role
   * (`apiGatewayCloudWatchRole`), which API Gateway needs to write any log. One role serves
   * every API of the account and region: set false where something else already manages it.
   * @default true
   */
  apiGatewayCloudWatchRole: boolean;
  /** `accountsDomainName` (+ `accountsCertificateArn`): the host of {base_url}. */
  accountsDomain: DomainSettings | undefined;
  /** `apiDomainName` (+ `apiCertificateArn`): the host of {api_base_url}. */
  apiDomain: DomainSettings | undefined;
  /** `hostedZoneId` + `hostedZoneName`: where the domains' records (and certificates) go. */
  hostedZone: HostedZoneSettings | undefined;
  /**
   * `dashboardDomainName` + `dashboardCertificateArn`: the host of the developer dashboard's
   * CloudFront distribution. CloudFront reads certificates only in us-east-1, so the ARN is
   * required (none is issued here); with `hostedZone` the alias records are added.
   * @default the distribution's own `*.cloudfront.net` name
   */
  dashboardDomain: DomainSettings | undefined;
  /**
   * Bumping `dashboardApiKeyGeneration` replaces the dashboard's API key (a new generated value in
   * a new secret) and every place it is used: the distribution's origin header and the web ACL.
   * @default 1
   */
  dashboardApiKeyGeneration: number;
  /**
   * The `aud` of access tokens (`jwtAudience`).
   * @default the general API's base address ({api_base_url})
   */
  jwtAudience: string | undefined;
  /**
   * Browser origins whose pages may call the API (`corsAllowedOrigins`, comma-separated, `*` for
   * any): API Gateway answers their preflights, and the API functions get them as
   * CORS_ALLOWED_ORIGINS to put the CORS headers on every answer.
   * @default [] (no browser app on another origin; the dashboard is served from the API's own)
   */
  corsAllowedOrigins: string[];
  /**
   * Email subscribed to the alarm topic (`alarmEmail`).
   * @default none (the topic has no subscriber)
   */
  alarmEmail: string | undefined;
  /**
   * The functions' processor (`architecture`): `arm64` (cheaper per GB-second) or `x86_64`.
   * @default 'arm64'
   */
  architecture: 'arm64' | 'x86_64';
}

/** A stage name becomes part of the stack's and its resources' names. */
const stagePattern = /^[a-z][a-z0-9-]{0,19}$/;
const clientPattern = /^[a-z][a-z0-9-]{0,39}$/;
const domainPattern = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

export function readSettings(scope: Construct): ServiceSettings {
  const stage = scope.node.tryGetContext('stage');
  if (typeof stage !== 'string' || !stagePattern.test(stage)) {
    throw new Error(
      `Context stage must name a stage (lower-case letters, digits, dashes), got "${stage}": pass -c stage=<name>`,
    );
  }
  const stages: unknown = scope.node.tryGetContext('stages') ?? {};
  const stageBlock: unknown = (stages as Record<string, unknown>)[stage];
  if (stageBlock === undefined || stageBlock === null || typeof stageBlock !== 'object') {
    throw new Error(
      `Context stages.${stage} is missing: declare the stage in cdk.json (declared: ${Object.keys(stages as object).join(', ') || 'none'})`,
    );
  }
  const text = (key: string): string | undefined => {
    const given: unknown =
      scope.node.tryGetContext(key) ?? (stageBlock as Record<string, unknown>)[key];
    if (given === undefined || given === null || given === '') return undefined;
    if (Array.isArray(given)) return given.map(String).join(',');
    if (typeof given !== 'string' && typeof given !== 'number' && typeof given !== 'boolean') {
      throw new Error(`Context ${key} of stage ${stage} must be a string, number or boolean`);
    }
    return String(given).trim();
  };
  /** A value as given, an object included (a JSON text from `-c` is parsed). */
  const raw = (key: string): unknown => {
    const given: unknown =
      scope.node.tryGetContext(key) ?? (stageBlock as Record<string, unknown>)[key];
    if (typeof given !== 'string') return given;
    try {
      return JSON.parse(given);
    } catch {
      throw new Error(`Context ${key} of stage ${stage} must be a JSON object, got "${given}"`);
    }
  };
  const tiersIn = (given: unknown): Record<string, ApiTier> => {
    if (given === undefined || given === null) return {};
    if (typeof given !== 'object' || Array.isArray(given)) {
      throw new Error(`Context apiTiers of stage ${stage} must map tier names to their limits`);
    }
    return Object.fromEntries(
      Object.entries(given as Record<string, Record<string, unknown>>).map(([tier, limits]) => {
        const count = (field: string, required: boolean): number | undefined => {
          const value = limits?.[field];
          if (value === undefined && !required) return undefined;
          if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
            throw new Error(
              `Context apiTiers.${tier}.${field} of stage ${stage} must be a positive integer, got "${value}"`,
            );
          }
          return value;
        };
        if (!clientPattern.test(tier)) {
          throw new Error(`Context apiTiers of stage ${stage}: "${tier}" is not a tier name`);
        }
        return [
          tier,
          {
            ratePerSecond: count('ratePerSecond', true)!,
            burst: count('burst', true)!,
            quotaPerDay: count('quotaPerDay', false),
          },
        ];
      }),
    );
  };
  const list = (key: string) =>
    (text(key) ?? '')
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item !== '');
  const positiveInteger = (key: string, fallback?: number): number => {
    const raw = text(key) ?? (fallback === undefined ? undefined : String(fallback));
    const value = Number(raw);
    if (raw === undefined || !Number.isInteger(value) || value < 1) {
      throw new Error(`Context ${key} of stage ${stage} must be a positive integer, got "${raw}"`);
    }
    return value;
  };
  const flag = (key: string, fallback: boolean): boolean => {
    const value = text(key) ?? String(fallback);
    if (value !== 'true' && value !== 'false') {
      throw new Error(`Context ${key} of stage ${stage} must be true or false`);
    }
    return value === 'true';
  };

  const emailFrom = text('emailFrom');
  if (emailFrom === undefined || !/^[^@\s<>]+@[^@\s<>]+\.[^@\s<>]+$/.test(emailFrom)) {
    throw new Error(
      `Context emailFrom of stage ${stage} must be a plain email address, got "${emailFrom}"`,
    );
  }

  const smsSenderId = text('smsSenderId');
  if (smsSenderId !== undefined && !/^(?=.*[A-Za-z])[A-Za-z0-9]{1,11}$/.test(smsSenderId)) {
    throw new Error('Context smsSenderId must be 1 to 11 letters or digits, with a letter');
  }

  const smsAllowedCountries = list('smsAllowedCountries').map((country) => country.toUpperCase());
  if (smsAllowedCountries.length === 0) {
    throw new Error(
      `Context smsAllowedCountries of stage ${stage} is required: the countries codes may be texted to (e.g. US,GB)`,
    );
  }
  const badCountry = smsAllowedCountries.find((country) => !/^[A-Z]{2}$/.test(country));
  if (badCountry !== undefined) {
    throw new Error(`Context smsAllowedCountries holds "${badCountry}", not an ISO alpha-2 code`);
  }

  const rateLimitMode = text('rateLimitMode') ?? 'test';
  if (!Object.hasOwn(rateLimitPerMode, rateLimitMode)) {
    throw new Error(`Context rateLimitMode must be test or production, got "${rateLimitMode}"`);
  }
  const perMinute = rateLimitPerMode[rateLimitMode as RateLimitMode];

  const apiTiers = {
    ...defaultApiTiers[rateLimitMode as RateLimitMode],
    ...tiersIn(raw('apiTiers')),
  };
  const apiClients = list('apiClients').map((entry) => {
    const [name = '', tier = 'standard', ...rest] = entry.split(':');
    return { name, tier, valid: rest.length === 0 };
  });
  // `dashboard` names the key only the stage's CloudFront distribution holds.
  const badClient = apiClients.find(
    (client) => !client.valid || !clientPattern.test(client.name) || client.name === 'dashboard',
  );
  if (
    apiClients.length === 0 ||
    badClient !== undefined ||
    new Set(apiClients.map((client) => client.name)).size < apiClients.length
  ) {
    throw new Error(
      `Context apiClients of stage ${stage} must name each client app once, as name or name:tier (lower-case letters, digits, dashes; not dashboard, the dashboard's own key), got "${text('apiClients') ?? ''}"`,
    );
  }
  const unknownTier = apiClients.find((client) => !Object.hasOwn(apiTiers, client.tier));
  if (unknownTier !== undefined) {
    throw new Error(
      `Context apiClients of stage ${stage}: ${unknownTier.name} is in the tier ${unknownTier.tier}, which apiTiers does not declare (declared: ${Object.keys(apiTiers).join(', ')})`,
    );
  }

  const trafficShifting = text('trafficShifting') ?? 'canary';
  if (!['canary', 'linear', 'all-at-once'].includes(trafficShifting)) {
    throw new Error(
      `Context trafficShifting must be canary, linear or all-at-once, got "${trafficShifting}"`,
    );
  }
  const account = text('account');
  if (account !== undefined && !/^\d{12}$/.test(account)) {
    throw new Error(`Context account of stage ${stage} must be a 12-digit AWS account id`);
  }
  const region = text('region');
  if (region !== undefined && !/^[a-z]{2}(-[a-z]+)+-\d$/.test(region)) {
    throw new Error(`Context region of stage ${stage} must be an AWS region, got "${region}"`);
  }

  const domain = (prefix: 'accounts' | 'api' | 'dashboard'): DomainSettings | undefined => {
    const domainName = text(`${prefix}DomainName`)?.toLowerCase();
    const certificateArn = text(`${prefix}CertificateArn`);
    if (domainName === undefined) {
      if (certificateArn !== undefined) {
        throw new Error(`Context ${prefix}CertificateArn needs ${prefix}DomainName`);
      }
      return undefined;
    }
    if (!domainPattern.test(domainName)) {
      throw new Error(`Context ${prefix}DomainName must be a host name, got "${domainName}"`);
    }
    if (
      certificateArn !== undefined &&
      !/^arn:aws[\w-]*:acm:[\w-]+:\d{12}:certificate\/[\w-]+$/.test(certificateArn)
    ) {
      throw new Error(`Context ${prefix}CertificateArn must be an ACM certificate ARN`);
    }
    return { domainName, certificateArn };
  };
  const accountsDomain = domain('accounts');
  const apiDomain = domain('api');
  const dashboardDomain = domain('dashboard');
  if (accountsDomain !== undefined && accountsDomain.domainName === apiDomain?.domainName) {
    throw new Error(
      `Context accountsDomainName and apiDomainName must be two hosts, got ${accountsDomain.domainName} for both`,
    );
  }
  if (
    dashboardDomain !== undefined &&
    !/^arn:aws[\w-]*:acm:us-east-1:/.test(dashboardDomain.certificateArn ?? '')
  ) {
    throw new Error(
      `The domain ${dashboardDomain.domainName} needs dashboardCertificateArn, an ACM certificate in us-east-1 (the only region CloudFront reads certificates from)`,
    );
  }
  const hostedZoneId = text('hostedZoneId');
  const zoneName = text('hostedZoneName')?.toLowerCase();
  if ((hostedZoneId === undefined) !== (zoneName === undefined)) {
    throw new Error('Context hostedZoneId and hostedZoneName go together');
  }
  const hostedZone =
    hostedZoneId === undefined || zoneName === undefined ? undefined : { hostedZoneId, zoneName };
  for (const configured of [accountsDomain, apiDomain, dashboardDomain]) {
    if (configured === undefined) continue;
    if (configured.certificateArn === undefined && hostedZone === undefined) {
      throw new Error(
        `The domain ${configured.domainName} needs a certificate: give its CertificateArn, or hostedZoneId and hostedZoneName to have one issued`,
      );
    }
    if (
      hostedZone !== undefined &&
      !`.${configured.domainName}`.endsWith(`.${hostedZone.zoneName}`)
    ) {
      throw new Error(
        `The domain ${configured.domainName} is not in the zone ${hostedZone.zoneName}`,
      );
    }
  }

  const signupDroughtHours = positiveInteger('signupDroughtHours', 24);
  if (signupDroughtHours > 168) {
    // CloudWatch evaluates an alarm over at most seven days.
    throw new Error(
      `Context signupDroughtHours must be at most 168 (a week), got ${signupDroughtHours}`,
    );
  }

  const architecture = text('architecture') ?? 'arm64';
  if (architecture !== 'arm64' && architecture !== 'x86_64') {
    throw new Error(`Context architecture must be arm64 or x86_64, got "${architecture}"`);
  }

  const smsReservedPercent = Number(text('smsReservedPercent') ?? '10');
  if (!Number.isInteger(smsReservedPercent) || smsReservedPercent < 0 || smsReservedPercent > 90) {
    throw new Error(
      `Context smsReservedPercent of stage ${stage} must be an integer from 0 to 90, got "${text('smsReservedPercent')}"`,
    );
  }

  const corsAllowedOrigins = list('corsAllowedOrigins');
  const badOrigins = invalidOrigins(corsAllowedOrigins);
  if (
    badOrigins.length > 0 ||
    (corsAllowedOrigins.includes('*') && corsAllowedOrigins.length > 1)
  ) {
    throw new Error(
      `Context corsAllowedOrigins must be origins such as https://app.example.com, or *, got "${corsAllowedOrigins.join(',')}"`,
    );
  }

  return {
    stage,
    emailFrom,
    smsSenderId,
    smsAllowedCountries,
    smsMaxPerHour: positiveInteger('smsMaxPerHour'),
    smsReservedPercent,
    genericSmsNumbersPerHour: positiveInteger('genericSmsNumbersPerHour', 5),
    genericSmsPerDay: positiveInteger('genericSmsPerDay', 20),
    smsMonthlySpendAlarmUsd: positiveInteger('smsMonthlySpendAlarmUsd'),
    signupDroughtHours,
    rateLimitMode: rateLimitMode as RateLimitMode,
    apiClients: apiClients.map(({ name, tier }) => ({ name, tier })),
    apiTiers,
    eventPublishesPerSecond: positiveInteger(
      'eventPublishesPerSecond',
      rateLimitMode === 'production' ? 1_000 : 50,
    ),
    trafficShifting: trafficShifting as TrafficShifting,
    account,
    region,
    receiverReservedConcurrency: positiveInteger('receiverReservedConcurrency', 10),
    wafRequestsPerIpPer5Minutes: positiveInteger('wafRequestsPerIpPer5Minutes', 10 * perMinute),
    apiGatewayCloudWatchRole: flag('apiGatewayCloudWatchRole', true),
    accountsDomain,
    apiDomain,
    hostedZone,
    dashboardDomain,
    dashboardApiKeyGeneration: positiveInteger('dashboardApiKeyGeneration', 1),
    jwtAudience: text('jwtAudience'),
    corsAllowedOrigins,
    alarmEmail: text('alarmEmail'),
    architecture,
  };
}
