/**
 * Configuration from the environment. Each function here reads `process.env` when it is called
 * and validates what it reads, so a missing or malformed variable fails with its name, not a
 * request with an undefined; reading is cheap, and the local runtime and the tests change some
 * settings between requests. What must be fixed for a function's life is read once where it is
 * used, at module level (the CORS origins in api-handler.ts, the OpenAPI servers), so a bad
 * value fails the cold start.
 *
 * Secrets never sit in the environment on AWS. There, a secret named X is given as `X_SECRET_ARN`
 * and read through the AWS Parameters and Secrets Lambda Extension (shared/adapters/secrets.ts).
 * Locally, and in tests, the plain variable X carries the value.
 */

export type RateLimitMode = 'test' | 'production';

/** Requests per minute per client in each mode (docs/conventions.md, "Rate limits"). */
export const rateLimitPerMode: Record<RateLimitMode, number> = { test: 100, production: 1000 };

/** The retry ladder: attempt 1 at once, then +5 min, +30 min, +2 h, +24 h. */
export const defaultRetryDelaysSeconds = [0, 300, 1800, 7200, 86400];

function optional(name: string): string | undefined {
  const value = process.env[name];
  return value === undefined || value === '' ? undefined : value;
}

export function required(name: string): string {
  const value = optional(name);
  if (value === undefined) {
    throw new Error(`Missing configuration: environment variable ${name} is not set`);
  }
  return value;
}

function positiveInteger(name: string, fallback: number): number {
  const raw = optional(name);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0) {
    throw new Error(`Invalid configuration: ${name} must be a positive integer, got "${raw}"`);
  }
  return value;
}

function list(name: string): string[] {
  return (optional(name) ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

/**
 * SERVICE_NAME: the stage's name (the stack sets its own, `AccountOtpWebhookService-<stage>`):
 * the `service` of every log line and the CloudWatch namespace of the service's metrics.
 */
export function serviceName(): string {
  return optional('SERVICE_NAME') ?? 'AccountOtpWebhookService-local';
}

/**
 * SES_CONFIGURATION_SET: the configuration set email is sent through (the stack sets its own, whose
 * sends, bounces and complaints feed the bounce and complaint alarms). Unset: none (local runs).
 */
export function sesConfigurationSet(): string | undefined {
  return optional('SES_CONFIGURATION_SET');
}

export function tableName(): string {
  return required('TABLE_NAME');
}

export function rateLimitMode(): RateLimitMode {
  const mode = optional('RATE_LIMIT_MODE') ?? 'test';
  if (mode !== 'test' && mode !== 'production') {
    throw new Error(
      `Invalid configuration: RATE_LIMIT_MODE must be test or production, got "${mode}"`,
    );
  }
  return mode;
}

/** Requests per minute per client: RATE_LIMIT_PER_MINUTE, else the mode's figure. */
export function rateLimitPerMinute(): number {
  return positiveInteger('RATE_LIMIT_PER_MINUTE', rateLimitPerMode[rateLimitMode()]);
}

/**
 * DASHBOARD_API_KEY_ID: the id of the API key that only the stage's CloudFront distribution holds
 * (it serves the developer dashboard and relays its calls); a request under it names its viewer in
 * a header the distribution writes. Unset off AWS: no request is relayed.
 */
export function dashboardApiKeyId(): string | undefined {
  return optional('DASHBOARD_API_KEY_ID');
}

/**
 * WEBHOOK_RETRY_DELAYS: the wait before each attempt, in seconds — the first counted from
 * publication, each later one from the previous failure; one entry per attempt.
 */
export function webhookRetryDelaysSeconds(): number[] {
  const raw = list('WEBHOOK_RETRY_DELAYS');
  if (raw.length === 0) return defaultRetryDelaysSeconds;
  const delays = raw.map(Number);
  if (delays.some((delay) => !Number.isInteger(delay) || delay < 0)) {
    throw new Error(
      'Invalid configuration: WEBHOOK_RETRY_DELAYS must be whole seconds, e.g. 0,300,1800',
    );
  }
  return delays;
}

/**
 * WEBHOOK_ENDPOINTS_PER_ACCOUNT: the most webhook endpoints one account may have at once. Every
 * event fans out to each subscribed endpoint, so this bounds the deliveries one publication can
 * cost (Stripe allows 16 endpoints per account).
 */
export function webhookEndpointsPerAccount(): number {
  return positiveInteger('WEBHOOK_ENDPOINTS_PER_ACCOUNT', 20);
}

/**
 * DASHBOARD_URL: where the developer dashboard is served (its CloudFront address), for the links
 * of the failure digest; without it the digest names the API call instead.
 */
export function dashboardUrl(): string | undefined {
  return optional('DASHBOARD_URL');
}

/**
 * WEBHOOK_ENDPOINT_MAX_IN_FLIGHT: the most attempts one endpoint may have under way at once. An
 * attempt waits up to 10 s for its endpoint, so this bounds the worker slots a slow or hanging
 * endpoint can hold, whoever owns it (docs/webhooks.md, "Isolation").
 */
export function webhookEndpointMaxInFlight(): number {
  return positiveInteger('WEBHOOK_ENDPOINT_MAX_IN_FLIGHT', 10);
}

/**
 * WEBHOOK_DISABLE_AFTER_DAYS: an endpoint whose attempts have all failed, without one success,
 * for this many days is disabled (Svix's rule and figure), and its owner is emailed.
 */
export function webhookDisableAfterDays(): number {
  return positiveInteger('WEBHOOK_DISABLE_AFTER_DAYS', 5);
}

/** Only for tests and the local runtime: lets webhook endpoints resolve to private addresses. */
export function webhookAllowPrivateNetwork(): boolean {
  return optional('WEBHOOK_ALLOW_PRIVATE_NETWORK') === 'true';
}

/**
 * SMS_ALLOWED_COUNTRIES: ISO 3166 alpha-2 codes (e.g. `US,GB,IN`) that codes may be texted to, the
 * defence against SMS pumping (bots requesting codes to premium-rate numbers). Empty allows all —
 * but only off AWS: a function running on Lambda (AWS_LAMBDA_FUNCTION_NAME, set by the Lambda
 * runtime) refuses to read an empty list, so a deployed stack must name its countries.
 */
export function smsAllowedCountries(): string[] {
  const countries = list('SMS_ALLOWED_COUNTRIES').map((country) => country.toUpperCase());
  if (countries.length === 0 && optional('AWS_LAMBDA_FUNCTION_NAME') !== undefined) {
    throw new Error(
      'Missing configuration: SMS_ALLOWED_COUNTRIES must name the countries texts may go to (e.g. US,GB) on a deployed function; an empty list would allow every country',
    );
  }
  const invalid = countries.filter((country) => !/^[A-Z]{2}$/.test(country));
  if (invalid.length > 0) {
    throw new Error(
      `Invalid configuration: SMS_ALLOWED_COUNTRIES must be two-letter country codes, got "${invalid.join(',')}"`,
    );
  }
  return countries;
}

/**
 * SMS_MAX_PER_HOUR: texts the whole service may send in one clock hour, all numbers and purposes
 * together — the bound on SMS spend that per-number and per-client limits cannot give (a pumper
 * spreads over many numbers and addresses). A log line warns at 80 % (`smsCapNearMessage`).
 */
export function smsMaxPerHour(): number {
  return positiveInteger('SMS_MAX_PER_HOUR', 1000);
}

/**
 * SMS_RESERVED_PERCENT: the last share of SMS_MAX_PER_HOUR that generic codes may not take, kept
 * for sign-in and verification texts (0 to 90). @default 10
 */
export function smsReservedPercent(): number {
  const raw = optional('SMS_RESERVED_PERCENT');
  if (raw === undefined) return 10;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0 || value > 90) {
    throw new Error(
      `Invalid configuration: SMS_RESERVED_PERCENT must be an integer from 0 to 90, got "${raw}"`,
    );
  }
  return value;
}

/**
 * GENERIC_SMS_NUMBERS_PER_HOUR: distinct numbers one account may have generic codes texted to in
 * one clock hour. @default 5
 */
export function genericSmsNumbersPerHour(): number {
  return positiveInteger('GENERIC_SMS_NUMBERS_PER_HOUR', 5);
}

/** GENERIC_SMS_PER_DAY: generic codes one account may have texted in one UTC day. @default 20 */
export function genericSmsPerDay(): number {
  return positiveInteger('GENERIC_SMS_PER_DAY', 20);
}

/**
 * ACCOUNTS_DOMAIN_NAME, API_DOMAIN_NAME: the custom domains of the two hosts, each set only when
 * configured (the stack's `accountsDomainName`, `apiDomainName`). A request that arrives through
 * one of them is served only the operations of that host.
 */
export function customDomainNames(): Partial<Record<'accounts' | 'api', string>> {
  const accounts = optional('ACCOUNTS_DOMAIN_NAME')?.toLowerCase();
  const api = optional('API_DOMAIN_NAME')?.toLowerCase();
  return {
    ...(accounts === undefined ? {} : { accounts }),
    ...(api === undefined ? {} : { api }),
  };
}

/**
 * PUBLIC_BASE_URLS: where clients reach this API, comma-separated, each ending in /v1 (the stage
 * URL, then any custom domain), listed as the OpenAPI document's `servers`. Configuration, never
 * the request's Host or X-Forwarded-* headers: a document built from those can be poisoned for
 * every client behind a cache. Unset, the document names the relative `/v1`, which resolves
 * against wherever the client fetched it from.
 */
export function publicBaseUrls(): string[] {
  const urls = list('PUBLIC_BASE_URLS');
  const invalid = urls.filter((url) => !/^https?:\/\/[^/\s]+\/v1$/.test(url));
  if (invalid.length > 0) {
    throw new Error(
      `Invalid configuration: PUBLIC_BASE_URLS must be absolute URLs ending in /v1, got "${invalid.join(',')}"`,
    );
  }
  return urls.length > 0 ? urls : ['/v1'];
}

/** The entries of an allowed-origins list that are neither an origin nor `*`. */
export const invalidOrigins = (origins: readonly string[]): string[] =>
  origins.filter(
    (origin) => origin !== '*' && !/^https?:\/\/[a-z0-9.-]+(:\d{1,5})?$/i.test(origin),
  );

/**
 * CORS_ALLOWED_ORIGINS: the browser origins (`https://app.example.com`, comma-separated) whose
 * pages may call the API; `*` allows any. Empty allows none: the API is for servers and native
 * apps, and the dashboard is served from the API's own origin (docs/conventions.md, "CORS").
 */
export function corsAllowedOrigins(): string[] {
  const origins = list('CORS_ALLOWED_ORIGINS');
  const invalid = invalidOrigins(origins);
  if (invalid.length > 0) {
    throw new Error(
      `Invalid configuration: CORS_ALLOWED_ORIGINS must be origins such as https://app.example.com, got "${invalid.join(',')}"`,
    );
  }
  return origins;
}

export function optionalSetting(name: string): string | undefined {
  return optional(name);
}

/** Every secret the service reads; on AWS each is a Secrets Manager secret given as X_SECRET_ARN. */
export const secretNames = [
  'JWT_SIGNING_KEYS',
  'OTP_PEPPER',
  'GATEWAY_A_WEBHOOK_SECRET',
  'GATEWAY_B_WEBHOOK_SECRET',
  'MESSAGING_APP_SECRET',
  'MESSAGING_VERIFY_TOKEN',
] as const;

export type SecretName = (typeof secretNames)[number];

/**
 * TOTP_ISSUER: the name an authenticator app shows beside the account's codes (the `issuer` of
 * the `otpauth://` URI): the product the client apps present.
 */
export function totpIssuer(): string {
  return optional('TOTP_ISSUER') ?? 'Accounts';
}

/**
 * The relying party of passkeys: WEBAUTHN_ORIGINS (the dashboard's and each client app's
 * origin), else the origin of DASHBOARD_URL; WEBAUTHN_RP_ID, else the first origin's host (a
 * passkey is bound to it for good: a registrable domain both serve under, on AWS); the name is
 * TOTP_ISSUER's.
 */
export function relyingParty(): { id: string; name: string; origins: string[] } {
  const listed = list('WEBAUTHN_ORIGINS');
  const dashboard = dashboardUrl();
  const origins =
    listed.length > 0 ? listed : dashboard === undefined ? [] : [new URL(dashboard).origin];
  if (origins.length === 0) {
    throw new Error('Missing configuration: WEBAUTHN_ORIGINS or DASHBOARD_URL must be set');
  }
  return {
    id: optional('WEBAUTHN_RP_ID') ?? new URL(origins[0]!).hostname,
    name: totpIssuer(),
    origins,
  };
}
