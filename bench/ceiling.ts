import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { callDynamo, dynamoClients } from '../shared/adapters/dynamodb-calls.js';
import { workQueueSizes } from '../shared/deployment-sizes.js';
import { claimTerms } from '../shared/domain/webhooks/attempt-delivery.js';
import { newEndpointId } from '../shared/domain/webhooks/ids.js';
import type { DeliveryRepository } from '../shared/domain/webhooks/ports.js';
import { deliveryOf, newEvent } from '../shared/domain/webhooks/publish-event.js';
import { ensureTable } from '../shared/local/dynamodb-local.js';
import { BenchClient } from './http-client.js';
import { type LoopResult, loadLoop } from './load-loop.js';
import { coreShareOf, dynamoLocalPid } from './process-cpu.js';
import {
  measured,
  percentile,
  type Row,
  reasonOf,
  round,
  type Section,
  unavailable,
} from './report.js';

const columns = [
  { key: 'per_second', label: 'ops/s' },
  { key: 'p50_ms', label: 'p50 ms' },
  { key: 'p99_ms', label: 'p99 ms' },
  { key: 'cpu_ms', label: 'node CPU ms/op' },
  { key: 'dynamo_core_percent', label: 'DynamoDB Local, % of a core' },
  { key: 'operations', label: 'ops' },
];

/** The figures the other sections are read against (their denominators). */
export interface Ceiling {
  httpSequentialPerSecond?: number;
  httpConcurrentPerSecond?: number;
  /** Median round trip of one raw GetItem / PutItem, 1 in flight, in ms. */
  dynamoGetP50Ms?: number;
  dynamoPutP50Ms?: number;
  /** The most PutItems a second DynamoDB Local took, 8 or 32 in flight: its write ceiling. */
  dynamoPutPerSecond?: number;
  /**
   * Deliveries a second whose own writes DynamoDB Local took, with nothing else to do: each made
   * in a batch of 10, then claimed and recorded, as the delivery worker's batches do.
   */
  dynamoDeliveryWritesPerSecond?: number;
  /** DynamoDB Local's (Java's) CPU ms for the writes of one delivery, over that same loop. */
  dynamoCpuMsPerDelivery?: number;
}

const rowOf = (name: string, result: LoopResult, dynamoCorePercent?: number): Row =>
  measured(name, {
    per_second: round(result.perSecond),
    p50_ms: round(percentile(result.latencies, 50), 3),
    p99_ms: round(percentile(result.latencies, 99), 3),
    cpu_ms: round(result.cpuMsPerOperation, 3),
    dynamo_core_percent: dynamoCorePercent ?? null,
    operations: result.operations,
  });

/** A bare node:http server and a keep-alive client in this process, loopback only. */
async function bareHttp(seconds: number, concurrency: number): Promise<LoopResult> {
  const body = JSON.stringify({ success: true, data: { ok: true } });
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(body);
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const { port } = server.address() as AddressInfo;
  const client = new BenchClient(concurrency);
  try {
    return await loadLoop(() => client.send({ method: 'GET', url: `http://127.0.0.1:${port}/` }), {
      concurrency,
      seconds,
      maxOperations: 200_000,
    });
  } finally {
    client.close();
    server.closeAllConnections();
    await new Promise<void>((closed) => server.close(() => closed()));
  }
}

/**
 * Raw single-item Get and Put against DynamoDB Local, in a scratch table of their own, through
 * the clients as the functions build them (dynamoClients, callDynamo): its node CPU per call is
 * the SDK path's cost of one DynamoDB call.
 */
async function dynamoRows(endpoint: string, seconds: number, ceiling: Ceiling): Promise<Row[]> {
  const admin = new DynamoDBClient({ endpoint });
  const clients = dynamoClients({ endpoint });
  const table = `bench-ceiling-${randomUUID()}`;
  const javaPid = dynamoLocalPid(endpoint);
  try {
    await ensureTable(admin, table);
    const item = (index: number) => ({
      pk: `ITEM#${index % 1000}`,
      sk: 'ITEM',
      payload: 'x'.repeat(200),
    });
    const put = (index: number) =>
      callDynamo(clients, 'PutItem', { TableName: table, Item: item(index) });
    const get = (index: number) =>
      callDynamo(clients, 'GetItem', {
        TableName: table,
        Key: { pk: `ITEM#${index % 1000}`, sk: 'ITEM' },
      });
    const bounds = { seconds, maxOperations: 50_000 };
    const loop = async (
      name: string,
      operation: (index: number) => Promise<unknown>,
      concurrency: number,
    ) => {
      const { result, corePercent } = await coreShareOf(javaPid, () =>
        loadLoop(operation, { ...bounds, concurrency }),
      );
      return { result, corePercent, row: rowOf(name, result, corePercent) };
    };
    const putSequential = await loop('DynamoDB Local PutItem, 1 in flight', put, 1);
    const getSequential = await loop('DynamoDB Local GetItem, 1 in flight', get, 1);
    const putConcurrent = await loop('DynamoDB Local PutItem, 8 in flight', put, 8);
    const getConcurrent = await loop('DynamoDB Local GetItem, 8 in flight', get, 8);
    // As many writes in flight as the delivery worker has attempts (5 batches of 10).
    const putWide = await loop('DynamoDB Local PutItem, 32 in flight', put, 32);
    const { dynamoDeliveryRepository } = await import('../shared/adapters/dynamo-deliveries.js');
    // Unmeasured first: Java compiles the UpdateItem and BatchWriteItem paths as they get hot,
    // which the Put and Get loops above did not exercise (the delivery section warms up alike).
    await loadLoop(() => deliveryBatchWrites(dynamoDeliveryRepository), {
      ...bounds,
      concurrency: workQueueSizes.maxConcurrency,
    });
    const deliveryWrites = await loop(
      `DynamoDB Local, the writes of 10 deliveries (1 batch), ${workQueueSizes.maxConcurrency} batches in flight`,
      () => deliveryBatchWrites(dynamoDeliveryRepository),
      workQueueSizes.maxConcurrency,
    );
    ceiling.dynamoGetP50Ms = percentile(getSequential.result.latencies, 50);
    ceiling.dynamoPutP50Ms = percentile(putSequential.result.latencies, 50);
    ceiling.dynamoPutPerSecond = Math.max(putConcurrent.result.perSecond, putWide.result.perSecond);
    ceiling.dynamoDeliveryWritesPerSecond = deliveryWrites.result.perSecond * deliveriesPerBatch;
    if (deliveryWrites.corePercent !== undefined) {
      // Java's CPU ms a second over the loop, per delivery made in that second.
      ceiling.dynamoCpuMsPerDelivery =
        (deliveryWrites.corePercent * 10) / ceiling.dynamoDeliveryWritesPerSecond;
    }
    return [
      putSequential.row,
      getSequential.row,
      putConcurrent.row,
      getConcurrent.row,
      putWide.row,
      deliveryWrites.row,
    ];
  } finally {
    admin.destroy();
  }
}

const deliveriesPerBatch = workQueueSizes.batchSize;

/**
 * The DynamoDB writes of one worker batch of deliveries and nothing else, through the service's
 * own repository on the service's table: the fan-out's batched create, then for each delivery
 * its claim and its recorded (delivered) outcome — the three writes that keep an attempt from
 * being made twice and its outcome from being lost (docs/performance.md, "Delivery").
 */
async function deliveryBatchWrites(deliveries: DeliveryRepository): Promise<void> {
  const now = Date.now();
  const event = newEvent(`usr_bench_${randomUUID()}`, 'order.created', {}, now);
  const batch = Array.from({ length: deliveriesPerBatch }, () =>
    deliveryOf(event, { id: newEndpointId() }, 8, now),
  );
  await deliveries.createMany(batch, { mayExist: false });
  await Promise.all(
    batch.map(async (delivery) => {
      const terms = claimTerms(Date.now());
      const claimed = await deliveries.claim(delivery.id, 1, terms);
      if (claimed === undefined) throw new Error(`bench delivery ${delivery.id} was not claimed`);
      const recorded = await deliveries.recordAttempt(
        claimed,
        terms.token,
        {
          attempt: 1,
          attemptedAt: new Date().toISOString(),
          outcome: 'succeeded',
          responseStatus: 200,
          latencyMs: 1,
        },
        { status: 'delivered' },
      );
      if (!recorded) throw new Error(`bench delivery ${delivery.id} was not recorded`);
    }),
  );
}

/** The machine's limits in this run: every other figure reads as a ratio to these. */
export async function ceilingSection(
  seconds: number,
  dynamoEndpoint: () => Promise<string>,
): Promise<{ section: Section; ceiling: Ceiling }> {
  const ceiling: Ceiling = {};
  const rows: Row[] = [];
  try {
    const sequential = await bareHttp(seconds, 1);
    ceiling.httpSequentialPerSecond = sequential.perSecond;
    rows.push(rowOf('bare node:http, 1 in flight', sequential));
    const concurrent = await bareHttp(seconds, 16);
    ceiling.httpConcurrentPerSecond = concurrent.perSecond;
    rows.push(rowOf('bare node:http, 16 in flight', concurrent));
  } catch (error) {
    rows.push(unavailable('bare node:http', reasonOf(error)));
  }
  try {
    rows.push(...(await dynamoRows(await dynamoEndpoint(), seconds, ceiling)));
  } catch (error) {
    rows.push(unavailable('DynamoDB Local Get/Put', reasonOf(error)));
  }
  return {
    ceiling,
    section: {
      id: 'ceiling',
      title: 'Ceiling: the machine in this run',
      columns,
      rows,
      notes: [
        'Client and server share this node process (as in the per-operation section), loopback only.',
        'DynamoDB Local is Java in its own process; its CPU is not in "node CPU ms/op" but in "DynamoDB Local, % of a core" (read from /proc over the same loop; 100 = one core busy throughout).',
        `The writes of 10 deliveries: the service's own repository on the service's table makes a worker batch's deliveries in one BatchWriteItem, then claims each and records it delivered (UpdateItem, UpdateItem), ${workQueueSizes.maxConcurrency} batches in flight as the deployed event source allows; ops/s is batches.`,
      ],
    },
  };
}
