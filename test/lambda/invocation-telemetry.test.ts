import { Ajv } from 'ajv';
import type { Context } from 'aws-lambda';
import * as v from 'valibot';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ServiceError } from '../../shared/domain/errors.js';
import { metricDefinitions, metrics } from '../../shared/domain/metrics.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { scheduledHandler } from '../../shared/lambda/invocation.js';
import type { LogRecord } from '../../shared/log.js';
import { log } from '../../shared/log.js';
import { invoke, restEvent } from '../support/events.js';
import { type RecordedLogs, recordLogs } from '../support/log-recorder.js';
import { tableCounter, testOperation } from '../support/operations.js';
import { useFreshTable } from '../support/table.js';

/**
 * The embedded metric format's document schema (docs.aws.amazon.com, "Specification: Embedded
 * metric format"), as far as this service uses it.
 */
const emfDocument = new Ajv().compile({
  type: 'object',
  required: ['_aws'],
  properties: {
    _aws: {
      type: 'object',
      required: ['Timestamp', 'CloudWatchMetrics'],
      properties: {
        Timestamp: { type: 'integer' },
        CloudWatchMetrics: {
          type: 'array',
          items: {
            type: 'object',
            required: ['Namespace', 'Dimensions', 'Metrics'],
            properties: {
              Namespace: { type: 'string', minLength: 1, maxLength: 255 },
              Dimensions: {
                type: 'array',
                minItems: 1,
                items: { type: 'array', maxItems: 9, items: { type: 'string', minLength: 1 } },
              },
              Metrics: {
                type: 'array',
                maxItems: 100,
                items: {
                  type: 'object',
                  required: ['Name'],
                  properties: {
                    Name: { type: 'string', minLength: 1, maxLength: 255 },
                    Unit: { enum: ['Count', 'Milliseconds'] },
                  },
                },
              },
            },
          },
        },
      },
    },
  },
});

interface Directive {
  Namespace: string;
  Dimensions: string[][];
  Metrics: { Name: string; Unit: string }[];
}
const directiveOf = (document: LogRecord) =>
  (document._aws as { CloudWatchMetrics: Directive[] }).CloudWatchMetrics[0]!;

const context = (functionName: string, awsRequestId: string) =>
  ({ functionName, awsRequestId, getRemainingTimeInMillis: () => 10_000 }) as Context;

const signup = apiHandler(
  testOperation({ body: v.object({ fail: v.boolean() }) }),
  tableCounter,
  async ({ body }) => {
    log.info('signing up');
    if (body.fail) throw new ServiceError('rate_limited', 'Slow down', [], { limit: 'test-limit' });
    metrics.count('Signups', {});
    metrics.count('OtpSent', { Channel: 'sms', Country: 'GB' });
    return { ok: true };
  },
);

let logs: RecordedLogs;
beforeAll(async () => {
  await useFreshTable();
});
beforeEach(() => {
  logs = recordLogs();
  process.env._X_AMZN_TRACE_ID =
    'Root=1-6749f0d3-0123456789abcdef01234567;Parent=53995c3f42cd8ad8;Sampled=1';
  process.env.SERVICE_NAME = 'AccountOtpWebhookService-test';
});
afterEach(() => {
  logs.stop();
  delete process.env._X_AMZN_TRACE_ID;
  delete process.env.SERVICE_NAME;
});

describe('an API invocation’s logs and metrics', () => {
  it('puts the function, both request ids, the trace and the cold start on every line', async () => {
    const first = restEvent({ body: '{"fail":false}' });
    const second = restEvent({ body: '{"fail":false}' });
    const answers = [
      await signup(first, context('signup', 'lambda-1')),
      await signup(second, context('signup', 'lambda-2')),
    ];

    expect(answers.map((answer) => answer.headers?.['x-request-id'])).toEqual([
      first.requestContext.requestId,
      second.requestContext.requestId,
    ]);
    const lines = logs.records.filter((line) => line.message === 'signing up');
    expect(lines).toEqual([
      expect.objectContaining({
        level: 'INFO',
        service: 'AccountOtpWebhookService-test',
        timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        function_name: 'signup',
        function_request_id: 'lambda-1',
        api_request_id: first.requestContext.requestId,
        correlation_id: first.requestContext.requestId,
        xray_trace_id: '1-6749f0d3-0123456789abcdef01234567',
        cold_start: true,
      }),
      expect.objectContaining({
        function_request_id: 'lambda-2',
        correlation_id: second.requestContext.requestId,
        cold_start: false,
      }),
    ]);
    const request = logs.records.find((line) => line.message === 'request');
    expect(request).toMatchObject({
      method: 'POST',
      status: 200,
      correlation_id: first.requestContext.requestId,
    });
  });

  it('writes each metric as a valid embedded-metric-format document in the stage’s namespace', async () => {
    const event = restEvent({ body: '{"fail":false}' });
    await signup(event, context('signup', 'lambda-3'));

    const documents = logs.records.filter((line) => '_aws' in line);
    expect(documents).toHaveLength(2);
    for (const document of documents) {
      expect(emfDocument(document), JSON.stringify(emfDocument.errors)).toBe(true);
      const directive = directiveOf(document);
      expect(directive.Namespace).toBe('AccountOtpWebhookService-test');
      // Every dimension it names is a string member beside it; the metric, a number.
      for (const key of directive.Dimensions.flat()) expect(typeof document[key]).toBe('string');
      for (const { Name } of directive.Metrics) expect(typeof document[Name]).toBe('number');
      expect(document.correlation_id).toBe(event.requestContext.requestId);
    }
    const [signups, texts] = documents;
    expect(directiveOf(signups!)).toEqual({
      Namespace: 'AccountOtpWebhookService-test',
      Dimensions: [[]],
      Metrics: [{ Name: 'Signups', Unit: 'Count' }],
    });
    // A detail publishes the point twice: per channel, and per channel and country.
    expect(directiveOf(texts!).Dimensions).toEqual([['Channel'], ['Channel', 'Country']]);
    expect(texts).toMatchObject({ OtpSent: 1, Channel: 'sms', Country: 'GB' });
  });

  it('counts a 429 by the limit that refused it', async () => {
    await invoke(signup, restEvent({ body: '{"fail":true}' }));
    const refused = logs.records.find((line) => 'RateLimited' in line);
    expect(refused).toMatchObject({ RateLimited: 1, Limit: 'test-limit' });
  });

  it('still writes metrics at LOG_LEVEL=error, and nothing at silent', async () => {
    process.env.LOG_LEVEL = 'error';
    await signup(restEvent({ body: '{"fail":false}' }), context('signup', 'lambda-4'));
    expect(logs.records.filter((line) => 'Signups' in line)).toHaveLength(1);
    expect(logs.records.filter((line) => line.message === 'signing up')).toEqual([]);

    process.env.LOG_LEVEL = 'silent';
    await signup(restEvent({ body: '{"fail":false}' }), context('signup', 'lambda-5'));
    expect(logs.records.filter((line) => 'Signups' in line)).toHaveLength(1);
  });

  it('gives a scheduled run its own invocation as the correlation id', async () => {
    const sweep = scheduledHandler(async () => log.info('swept'));
    await sweep({}, context('sweepDeliveries', 'lambda-sweep'));
    expect(logs.records.find((line) => line.message === 'swept')).toMatchObject({
      function_name: 'sweepDeliveries',
      correlation_id: 'lambda-sweep',
      cold_start: true,
    });
  });
});

describe('the metric catalogue', () => {
  it('keeps names and dimensions within CloudWatch’s limits', () => {
    for (const [name, definition] of Object.entries(metricDefinitions)) {
      const keys = [...definition.dimensions, ...('detail' in definition ? definition.detail : [])];
      expect(keys.length, name).toBeLessThanOrEqual(9);
      expect(name).toMatch(/^[A-Za-z]{1,255}$/);
    }
  });
});
