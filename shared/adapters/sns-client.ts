import {
  type AwsClientOptions,
  AwsError,
  type AwsResponse,
  SignedAwsClient,
} from './aws-signed-request.js';

/**
 * SNS's Publish to a phone number, the one SNS call the functions make, without the SDK's client
 * (its query-protocol serde and XML parser weigh on `otp/send-otp`'s cold start:
 * docs/performance.md). The protocol is the SDK's (@aws-sdk/client-sns 3.x): AWS Query, a
 * form-encoded POST (`Action=Publish&Version=2010-03-31&…`) answered in XML, a refusal as
 * `<ErrorResponse><Error><Code>…`. Throttling, 5xx and network failures are retried
 * (aws-signed-request.ts); the endpoint is AWS_ENDPOINT_URL_SNS or AWS_ENDPOINT_URL when set.
 */

export interface MessageAttributeValue {
  DataType: 'String';
  StringValue: string;
}

export interface PublishInput {
  PhoneNumber: string;
  Message: string;
  MessageAttributes?: Record<string, MessageAttributeValue>;
}

/** A refusal SNS answered, named by its error code (`Throttled`, `InternalError`, …). */
export class SnsError extends AwsError {}

/** Code `InvalidParameter`: e.g. a number that opted out, or that SNS cannot text. */
export class InvalidParameterException extends SnsError {
  constructor(message: string, httpStatus: number) {
    super('InvalidParameterException', message, httpStatus);
  }
}

/** Code `InvalidParameterValue`: e.g. a malformed phone number. */
export class InvalidParameterValueException extends SnsError {
  constructor(message: string, httpStatus: number) {
    super('InvalidParameterValueException', message, httpStatus);
  }
}

const snsService = {
  title: 'SNS',
  signingName: 'sns',
  endpointVariables: ['AWS_ENDPOINT_URL_SNS', 'AWS_ENDPOINT_URL'],
  retryable: new Set(['Throttled', 'Throttling', 'KMSThrottling', 'InternalError']),
};

/** The query protocol's encoding (RFC 3986: encodeURIComponent, and `!'()*` too), as the SDK's. */
const encode = (value: string) =>
  encodeURIComponent(value).replace(
    /[!'()*]/g,
    (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`,
  );

const entities: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
};

/** The text of the first `<tag>` of an XML answer, its entities decoded. */
function xmlText(xml: string, tag: string): string | undefined {
  const text = new RegExp(`<${tag}>([^<]*)</${tag}>`).exec(xml)?.[1];
  return text?.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (entity, name: string) => {
    if (name.startsWith('#x') || name.startsWith('#X'))
      return String.fromCodePoint(Number.parseInt(name.slice(2), 16));
    if (name.startsWith('#')) return String.fromCodePoint(Number(name.slice(1)));
    return entities[name] ?? entity;
  });
}

function errorOf({ status, text }: AwsResponse): SnsError {
  const code = xmlText(text, 'Code') ?? `HTTP${status}`;
  const message = xmlText(text, 'Message') ?? code;
  if (code === 'InvalidParameter') return new InvalidParameterException(message, status);
  if (code === 'InvalidParameterValue') return new InvalidParameterValueException(message, status);
  return new SnsError(code, message, status);
}

export class SnsClient {
  private readonly transport: SignedAwsClient;

  constructor(options: AwsClientOptions = {}) {
    this.transport = new SignedAwsClient(snsService, options);
  }

  /** Throws InvalidParameterException and the like when SNS refuses, SnsError otherwise. */
  publish(input: PublishInput): Promise<{ MessageId?: string }> {
    // Members in the order of the SDK's schema; attributes as `MessageAttributes.entry.N.…`.
    const fields: [string, string][] = [
      ['Action', 'Publish'],
      ['Version', '2010-03-31'],
      ['Message', input.Message],
      ['PhoneNumber', input.PhoneNumber],
      ...Object.entries(input.MessageAttributes ?? {}).flatMap(
        ([name, value], index): [string, string][] => {
          const entry = `MessageAttributes.entry.${index + 1}`;
          return [
            [`${entry}.Name`, name],
            [`${entry}.Value.DataType`, value.DataType],
            [`${entry}.Value.StringValue`, value.StringValue],
          ];
        },
      ),
    ];
    return this.transport.send(
      {
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: fields.map(([name, value]) => `${encode(name)}=${encode(value)}`).join('&'),
        what: 'Publish',
      },
      (response) => {
        if (response.status < 200 || response.status >= 300) throw errorOf(response);
        return { MessageId: xmlText(response.text, 'MessageId') };
      },
    );
  }
}
