import { queryRefusalOf, queryRequest, xmlText } from './aws-query.js';
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

function errorOf(response: AwsResponse): SnsError {
  const { code, message } = queryRefusalOf(response);
  const status = response.status;
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
    return this.transport.send(queryRequest('Publish', '2010-03-31', fields), (response) => {
      if (response.status < 200 || response.status >= 300) throw errorOf(response);
      return { MessageId: xmlText(response.text, 'MessageId') };
    });
  }
}
