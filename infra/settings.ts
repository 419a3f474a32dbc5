import type { Construct } from 'constructs';
import { invalidOrigins, type RateLimitMode, rateLimitPerMode } from '../shared/config.js';

/**
 * The deployment's choices, read from CDK context (`cdk.json` or `-c key=value`) once and
 * validated at synth time, so a typo fails `cdk synth` instead of a cold start.
 */
export interface ServiceSettings {
  /**
   * Sender address of all email (`emailFrom`). Its address or its domain must be a verified SES
   * identity in the deployment region.
   * @default 'no-reply@example.com'
   */
  emailFrom: string;
  /**
   * SMS sender id (`smsSenderId`): 1 to 11 letters/digits, honoured only in countries that
   * support sender ids.
   * @default none (the carrier's default)
   */
  smsSenderId: string | undefined;
  /**
   * ISO 3166 alpha-2 countries SMS may be sent to (`smsAllowedCountries`, comma-separated).
   * @default [] (no restriction configured)
   */
  smsAllowedCountries: string[];
  /**
   * The per-client limit of the API handlers (`rateLimitMode`).
   * @default 'test'
   */
  rateLimitMode: RateLimitMode;
  /**
   * Reserved concurrency of each inbound receiver (`receiverReservedConcurrency`): a cost guard
   * against floods on the public Function URLs.
   * @default 10
   */
  receiverReservedConcurrency: number;
  /**
   * Whether API methods require an API key (`apiKeyRequired`). On by default: API Gateway applies
   * usage-plan throttles only to methods that require a key, and the design's backstop is the
   * usage plans (a test key: 100/min, a production key: 1,000/min).
   * @default true
   */
  apiKeyRequired: boolean;
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
   * Bumping `secretsGeneration` changes an environment variable of every function that reads
   * secrets, so a deploy forces them all to cold start and fetch the rotated values.
   * @default '1'
   */
  secretsGeneration: string;
}

export function readSettings(scope: Construct): ServiceSettings {
  const text = (key: string): string | undefined => {
    const value: unknown = scope.node.tryGetContext(key);
    if (value === undefined || value === null || value === '') return undefined;
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
      throw new Error(`Context ${key} must be a string, number or boolean`);
    }
    return String(value).trim();
  };

  const emailFrom = text('emailFrom') ?? 'no-reply@example.com';
  if (!/^[^@\s<>]+@[^@\s<>]+\.[^@\s<>]+$/.test(emailFrom)) {
    throw new Error(`Context emailFrom must be a plain email address, got "${emailFrom}"`);
  }

  const smsSenderId = text('smsSenderId');
  if (smsSenderId !== undefined && !/^(?=.*[A-Za-z])[A-Za-z0-9]{1,11}$/.test(smsSenderId)) {
    throw new Error('Context smsSenderId must be 1 to 11 letters or digits, with a letter');
  }

  const smsAllowedCountries = (text('smsAllowedCountries') ?? '')
    .split(',')
    .map((country) => country.trim().toUpperCase())
    .filter((country) => country !== '');
  const badCountry = smsAllowedCountries.find((country) => !/^[A-Z]{2}$/.test(country));
  if (badCountry !== undefined) {
    throw new Error(`Context smsAllowedCountries holds "${badCountry}", not an ISO alpha-2 code`);
  }

  const rateLimitMode = text('rateLimitMode') ?? 'test';
  if (!Object.hasOwn(rateLimitPerMode, rateLimitMode)) {
    throw new Error(`Context rateLimitMode must be test or production, got "${rateLimitMode}"`);
  }

  const concurrency = Number(text('receiverReservedConcurrency') ?? 10);
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new Error('Context receiverReservedConcurrency must be a positive integer');
  }

  const apiKeyRequired = text('apiKeyRequired') ?? 'true';
  if (apiKeyRequired !== 'true' && apiKeyRequired !== 'false') {
    throw new Error('Context apiKeyRequired must be true or false');
  }

  const corsAllowedOrigins = (text('corsAllowedOrigins') ?? '')
    .split(',')
    .map((origin) => origin.trim())
    .filter((origin) => origin !== '');
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
    emailFrom,
    smsSenderId,
    smsAllowedCountries,
    rateLimitMode: rateLimitMode as RateLimitMode,
    receiverReservedConcurrency: concurrency,
    apiKeyRequired: apiKeyRequired === 'true',
    corsAllowedOrigins,
    alarmEmail: text('alarmEmail'),
    secretsGeneration: text('secretsGeneration') ?? '1',
  };
}
