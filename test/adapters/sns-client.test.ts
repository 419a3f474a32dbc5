import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  InvalidParameterException,
  InvalidParameterValueException,
  SnsClient,
  SnsError,
} from '../../shared/adapters/sns-client.js';
import {
  callsThroughEndpointVariables,
  exampleCredentials as credentials,
  protocolOf,
  queryRefusal as refusal,
  sdkAuthorization,
  snsPublished,
  useRecordingEndpoint,
} from '../support/aws-endpoint.js';

const region = 'eu-west-1';
const messageId = '94f20ce6-13c5-43a0-9a9e-ca52d816e90b';
const endpoint = useRecordingEndpoint(() => snsPublished(messageId));
let client: SnsClient;

beforeAll(() => {
  client = new SnsClient({ endpoint: endpoint.url, region, credentials });
});

const text = {
  PhoneNumber: '+447400123456',
  // Every character the query encoding treats apart: RFC 3986 reserved, `!'()*`, and UTF-8.
  Message: "904512 is your code. Don't share it! (5 min) *é* ~ & = + / ?",
  MessageAttributes: {
    'AWS.SNS.SMS.SMSType': { DataType: 'String' as const, StringValue: 'Transactional' },
    'AWS.SNS.SMS.SenderID': { DataType: 'String' as const, StringValue: 'ACME' },
  },
};

describe('the SNS client', () => {
  it('publishes to a phone number as the AWS SDK does, signed as its signer would', async () => {
    const sdk = new SNSClient({ endpoint: endpoint.url, region, credentials });
    await sdk.send(new PublishCommand(text));
    sdk.destroy();
    const [reference] = endpoint.requests.splice(0);

    const output = await client.publish(text);

    const [ours] = endpoint.requests.splice(0);
    expect(protocolOf(ours!)).toEqual(protocolOf(reference!));
    expect(new URLSearchParams(ours!.body).get('Message')).toBe(text.Message);
    expect(protocolOf(ours!).scope).toBe('eu-west-1/sns/aws4_request');
    expect(ours!.headers.authorization).toBe(
      await sdkAuthorization(ours!, { service: 'sns', region, credentials }),
    );
    expect(output.MessageId).toBe(messageId);
  });

  it('names the parameter errors as the SDK does, and does not retry them', async () => {
    endpoint.answers = [
      refusal(400, 'InvalidParameter', 'Invalid parameter: PhoneNumber Reason: opted out'),
      refusal(400, 'InvalidParameterValue', 'Invalid parameter: PhoneNumber &lt;+1&gt;'),
    ];

    const optedOut = await client.publish(text).catch((error: unknown) => error);
    const malformed = await client.publish(text).catch((error: unknown) => error);

    expect(optedOut).toBeInstanceOf(InvalidParameterException);
    expect(optedOut).toMatchObject({
      name: 'InvalidParameterException',
      message: 'Invalid parameter: PhoneNumber Reason: opted out',
      httpStatus: 400,
    });
    expect(malformed).toBeInstanceOf(InvalidParameterValueException);
    expect(malformed).toMatchObject({ message: 'Invalid parameter: PhoneNumber <+1>' });
    expect(endpoint.requests.splice(0)).toHaveLength(2);
  });

  it('retries throttling and server errors, then gives up naming the error', async () => {
    endpoint.answers = [
      refusal(429, 'Throttled', 'Rate exceeded'),
      refusal(500, 'InternalError', 'boom'),
    ];
    await client.publish(text);
    expect(endpoint.requests.splice(0)).toHaveLength(3);

    endpoint.answers = Array.from({ length: 3 }, () => refusal(500, 'InternalError', 'boom'));
    const failure = client.publish(text);
    await expect(failure).rejects.toBeInstanceOf(SnsError);
    await expect(failure).rejects.toMatchObject({ name: 'InternalError', httpStatus: 500 });
    expect(endpoint.requests.splice(0)).toHaveLength(3);
  });

  it('goes where AWS_ENDPOINT_URL_SNS or AWS_ENDPOINT_URL points, with the Lambda environment’s credentials', async () => {
    const { requests, lambdaSignature } = await callsThroughEndpointVariables(
      endpoint,
      'AWS_ENDPOINT_URL_SNS',
      'sns',
      () => new SnsClient().publish(text),
    );
    expect(requests).toHaveLength(2);
    expect(requests[0]!.headers.authorization).toBe(lambdaSignature);
  });
});
