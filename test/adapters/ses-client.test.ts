import { SESClient, SendEmailCommand } from '@aws-sdk/client-ses';
import { beforeAll, describe, expect, it } from 'vitest';
import { MessageRejected, SesClient, SesError } from '../../shared/adapters/ses-client.js';
import {
  callsThroughEndpointVariables,
  exampleCredentials as credentials,
  protocolOf,
  queryRefusal as refusal,
  sdkAuthorization,
  sesSent,
  useRecordingEndpoint,
} from '../support/aws-endpoint.js';

const region = 'eu-west-1';
const messageId = '0102019c-5b1a-7e0f-a2c4-6d1e2f3a4b5c-000000';
const endpoint = useRecordingEndpoint(() => sesSent(messageId));
let client: SesClient;

beforeAll(() => {
  client = new SesClient({ endpoint: endpoint.url, region, credentials });
});

const email = {
  Source: 'Acme <no-reply@example.com>',
  ConfigurationSetName: 'stage-email',
  Destination: { ToAddresses: ['ada+codes@example.com'] },
  Message: {
    // Every character the query encoding treats apart: RFC 3986 reserved, `!'()*`, and UTF-8.
    Subject: { Data: "Your code (don't share it!) *é*", Charset: 'UTF-8' },
    Body: {
      Text: { Data: '042137 ~ & = + / ?\nExpires in 10 minutes.', Charset: 'UTF-8' },
      Html: { Data: '<p>Your code: <b>042137</b></p>', Charset: 'UTF-8' },
    },
  },
};

describe('the SES client', () => {
  it('sends an email as the AWS SDK does, signed as its signer would', async () => {
    const sdk = new SESClient({ endpoint: endpoint.url, region, credentials });
    await sdk.send(new SendEmailCommand(email));
    sdk.destroy();
    const [reference] = endpoint.requests.splice(0);

    const output = await client.sendEmail(email);

    const [ours] = endpoint.requests.splice(0);
    expect(protocolOf(ours!)).toEqual(protocolOf(reference!));
    expect(new URLSearchParams(ours!.body).get('Message.Subject.Data')).toBe(
      email.Message.Subject.Data,
    );
    expect(protocolOf(ours!).scope).toBe('eu-west-1/ses/aws4_request');
    expect(ours!.headers.authorization).toBe(
      await sdkAuthorization(ours!, { service: 'ses', region, credentials }),
    );
    expect(output.MessageId).toBe(messageId);
  });

  it('sends without a configuration set as the AWS SDK does', async () => {
    const { ConfigurationSetName: _, ...plain } = email;
    const sdk = new SESClient({ endpoint: endpoint.url, region, credentials });
    await sdk.send(new SendEmailCommand(plain));
    sdk.destroy();
    const [reference] = endpoint.requests.splice(0);

    await client.sendEmail(plain);

    expect(endpoint.requests.splice(0)[0]!.body).toBe(reference!.body);
  });

  it('names refusals as the SDK does, and does not retry them', async () => {
    endpoint.answers = [
      refusal(400, 'MessageRejected', 'Email address is not verified: &lt;ada@example.com&gt;'),
      refusal(400, 'ConfigurationSetDoesNotExist', 'Configuration set stage-email does not exist'),
    ];

    const rejected = await client.sendEmail(email).catch((error: unknown) => error);
    const noSet = await client.sendEmail(email).catch((error: unknown) => error);

    expect(rejected).toBeInstanceOf(MessageRejected);
    expect(rejected).toMatchObject({
      name: 'MessageRejected',
      message: 'Email address is not verified: <ada@example.com>',
      httpStatus: 400,
    });
    expect(noSet).toBeInstanceOf(SesError);
    expect(noSet).toMatchObject({ name: 'ConfigurationSetDoesNotExistException' });
    expect(endpoint.requests.splice(0)).toHaveLength(2);
  });

  it('retries throttling and server errors, then gives up naming the error', async () => {
    endpoint.answers = [
      refusal(400, 'Throttling', 'Maximum sending rate exceeded.'),
      refusal(500, 'InternalFailure', 'boom'),
    ];
    await client.sendEmail(email);
    expect(endpoint.requests.splice(0)).toHaveLength(3);

    endpoint.answers = Array.from({ length: 3 }, () =>
      refusal(400, 'Throttling', 'Maximum sending rate exceeded.'),
    );
    const failure = client.sendEmail(email);
    await expect(failure).rejects.toBeInstanceOf(SesError);
    await expect(failure).rejects.toMatchObject({ name: 'Throttling', httpStatus: 400 });
    expect(endpoint.requests.splice(0)).toHaveLength(3);
  });

  it('goes where AWS_ENDPOINT_URL_SES or AWS_ENDPOINT_URL points, with the Lambda environment’s credentials', async () => {
    const { requests, lambdaSignature } = await callsThroughEndpointVariables(
      endpoint,
      'AWS_ENDPOINT_URL_SES',
      'ses',
      () => new SesClient().sendEmail(email),
    );
    expect(requests).toHaveLength(2);
    expect(requests[0]!.headers.authorization).toBe(lambdaSignature);
  });
});
