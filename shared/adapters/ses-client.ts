import { queryRefusalOf, queryRequest, xmlText } from './aws-query.js';
import {
  type AwsClientOptions,
  AwsError,
  type AwsResponse,
  SignedAwsClient,
} from './aws-signed-request.js';

/**
 * SES's SendEmail (v1), the one SES call the functions make, without the SDK's client (with the
 * SDK core, 172 of `workers/send-account-code`'s 375 KiB, and most of its cold start above the
 * DynamoDB floor: docs/performance.md). The protocol is the SDK's (@aws-sdk/client-ses 3.x):
 * AWS Query (`Action=SendEmail&Version=2010-12-01&…`, aws-query.ts), to
 * `email.<region>.amazonaws.com` signed as `ses`. Throttling (SES's sending-rate refusal is
 * `Throttling`), 5xx and network failures are retried (aws-signed-request.ts); the endpoint is
 * AWS_ENDPOINT_URL_SES or AWS_ENDPOINT_URL when set.
 */

export interface Content {
  Data: string;
  Charset?: string;
}

export interface SendEmailInput {
  Source: string;
  Destination: { ToAddresses: string[] };
  Message: { Subject: Content; Body: { Text?: Content; Html?: Content } };
  ConfigurationSetName?: string;
}

/** A refusal SES answered, named as the SDK names it (`AccountSendingPausedException`, …). */
export class SesError extends AwsError {}

/** E.g. an address not verified while the account is in the sandbox. */
export class MessageRejected extends SesError {
  constructor(message: string, httpStatus: number) {
    super('MessageRejected', message, httpStatus);
  }
}

/** The one SendEmail error whose code is not its name in the SDK. */
const sdkNames: Record<string, string> = {
  ConfigurationSetDoesNotExist: 'ConfigurationSetDoesNotExistException',
};

const sesService = {
  title: 'SES',
  signingName: 'ses',
  endpointPrefix: 'email',
  endpointVariables: ['AWS_ENDPOINT_URL_SES', 'AWS_ENDPOINT_URL'],
  retryable: new Set(['Throttling']),
};

function errorOf(response: AwsResponse): SesError {
  const { code, message } = queryRefusalOf(response);
  if (code === 'MessageRejected') return new MessageRejected(message, response.status);
  return new SesError(sdkNames[code] ?? code, message, response.status);
}

/** `Data` and `Charset` of `content`, under `prefix`, as the SDK serializes a Content. */
const contentFields = (prefix: string, content: Content | undefined): [string, string][] =>
  content === undefined
    ? []
    : [
        [`${prefix}.Data`, content.Data],
        ...(content.Charset === undefined
          ? []
          : [[`${prefix}.Charset`, content.Charset] as [string, string]]),
      ];

export class SesClient {
  private readonly transport: SignedAwsClient;

  constructor(options: AwsClientOptions = {}) {
    this.transport = new SignedAwsClient(sesService, options);
  }

  /** Throws MessageRejected and the like when SES refuses, SesError otherwise. */
  sendEmail(input: SendEmailInput): Promise<{ MessageId?: string }> {
    // Members in the order of the SDK's schema; lists as `….member.N`.
    const fields: [string, string][] = [
      ['Source', input.Source],
      ...input.Destination.ToAddresses.map((address, index): [string, string] => [
        `Destination.ToAddresses.member.${index + 1}`,
        address,
      ]),
      ...contentFields('Message.Subject', input.Message.Subject),
      ...contentFields('Message.Body.Text', input.Message.Body.Text),
      ...contentFields('Message.Body.Html', input.Message.Body.Html),
      ...(input.ConfigurationSetName === undefined
        ? []
        : [['ConfigurationSetName', input.ConfigurationSetName] as [string, string]]),
    ];
    return this.transport.send(queryRequest('SendEmail', '2010-12-01', fields), (response) => {
      if (response.status < 200 || response.status >= 300) throw errorOf(response);
      return { MessageId: xmlText(response.text, 'MessageId') };
    });
  }
}
