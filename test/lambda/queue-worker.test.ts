import { randomUUID } from 'node:crypto';
import type { SQSRecord } from 'aws-lambda';
import * as v from 'valibot';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { messageCodec } from '../../shared/adapters/message-codec.js';
import {
  BatchFailedError,
  queueWorker,
  type RecordOutcome,
} from '../../shared/lambda/queue-worker.js';
import { log } from '../../shared/log.js';
import { lambdaContext, sqsRecord } from '../support/events.js';
import { type RecordedLogs, recordLogs } from '../support/log-recorder.js';

/** A queue of jobs: `{"job": "<what to do>"}`, as the service's three queues carry their work. */
const jobCodec = messageCodec(v.object({ job: v.pipe(v.string(), v.minLength(1)) }), {
  toBody: (job: string) => ({ job }),
  fromBody: (body) => body.job,
});

const record = (body: string) => sqsRecord(randomUUID(), body);

/** Each job says what its handler does: finish, ask to come back later, or crash. */
const outcomes: Record<string, () => Promise<RecordOutcome>> = {
  ok: async () => 'done',
  busy: async () => 'later',
  crash: async () => {
    throw new Error('the table is unavailable');
  },
};
const worker = queueWorker({
  codec: jobCodec,
  describe: (job) => ({ job }),
  handle: (job) => (outcomes[job] ?? outcomes.ok!)(),
});

let logs: RecordedLogs;
beforeEach(() => {
  logs = recordLogs();
});
afterEach(() => logs.stop());

describe('the SQS worker runner', () => {
  it('reports only the records that crashed or must come back later', async () => {
    const [ok, busy, crash] = ['ok', 'busy', 'crash'].map((job) =>
      record(jobCodec.encode(job)),
    ) as [SQSRecord, SQSRecord, SQSRecord];

    const response = await worker({ Records: [ok, busy, crash] }, lambdaContext);

    expect(response.batchItemFailures).toEqual([
      { itemIdentifier: busy.messageId },
      { itemIdentifier: crash.messageId },
    ]);
    expect(logs.records.filter((line) => line.level === 'ERROR')).toEqual([
      expect.objectContaining({
        message: 'queue message failed; SQS will deliver it again',
        job: 'crash',
        message_id: crash.messageId,
        error: expect.objectContaining({ message: 'the table is unavailable' }),
      }),
    ]);
  });

  it('drops a body it cannot decode with an error line, instead of retrying it until the DLQ', async () => {
    const foreign = record('{"job": ""}');
    const notJson = record('not json');

    const response = await worker({ Records: [foreign, notJson] }, lambdaContext);

    expect(response.batchItemFailures).toEqual([]);
    expect(
      logs.records
        .filter((line) => line.message === 'dropped a queue message that does not decode')
        .map((line) => line.message_id),
    ).toEqual([foreign.messageId, notJson.messageId]);
  });

  it('fails the invocation when every record of the batch crashed, so the error alarm sees it', async () => {
    const batch = [record(jobCodec.encode('crash')), record(jobCodec.encode('crash'))];
    await expect(worker({ Records: batch }, lambdaContext)).rejects.toThrow(BatchFailedError);
  });

  it('does not fail the invocation for records that only come back later', async () => {
    const response = await worker({ Records: [record(jobCodec.encode('busy'))] }, lambdaContext);
    expect(response.batchItemFailures).toHaveLength(1);
  });

  it('puts each record’s correlation id on its own lines, however the records interleave', async () => {
    const sentOn: Record<string, string> = {};
    const interleaving = queueWorker({
      codec: jobCodec,
      handle: async (job) => {
        log.info('started', { job });
        // The records' work interleaves: each awaits while the others run.
        await new Promise((resume) => setTimeout(resume, Number(job.slice(1))));
        log.info('finished', { job });
        // What a record sends on carries its correlation id further.
        sentOn[job] = jobCodec.encode(`${job}-next`);
        return 'done';
      },
    });
    const correlationIds = ['api-request-1', 'api-request-2', 'api-request-3'];
    const records = ['j30', 'j10', 'j20'].map((job, index) =>
      record(JSON.stringify({ job, correlation_id: correlationIds[index] })),
    );

    await interleaving({ Records: records }, lambdaContext);

    const lines = logs.records.filter((line) => line.message === 'finished');
    expect(lines.map((line) => line.job)).toEqual(['j10', 'j20', 'j30']);
    for (const [index, job] of ['j30', 'j10', 'j20'].entries()) {
      const own = logs.records.filter((line) => line.job === job);
      expect(own.map((line) => line.correlation_id)).toEqual([
        correlationIds[index],
        correlationIds[index],
      ]);
      expect(jobCodec.decode(sentOn[job]!)?.correlationId).toBe(correlationIds[index]);
    }
  });

  it('takes the message id as the correlation id of a message sent without one', async () => {
    const bare = record('{"job":"ok"}');
    await worker({ Records: [bare] }, lambdaContext);
    const received = logs.records.find((line) => line.message === 'queue message received');
    expect(received).toMatchObject({ correlation_id: bare.messageId, message_id: bare.messageId });
  });
});
