import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoClient } from '../shared/adapters/dynamodb-client.js';
import { ensureTable } from '../shared/local/dynamodb-local.js';
import { BenchClient } from './http-client.js';
import { type LoopResult, loadLoop } from './load-loop.js';
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
}

const rowOf = (name: string, result: LoopResult): Row =>
  measured(name, {
    per_second: round(result.perSecond),
    p50_ms: round(percentile(result.latencies, 50), 3),
    p99_ms: round(percentile(result.latencies, 99), 3),
    cpu_ms: round(result.cpuMsPerOperation, 3),
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
 * the service's own DynamoDB client (the lightest there is here: DynamoDB Local, not the client,
 * should be what limits the concurrent loops).
 */
async function dynamoRows(endpoint: string, seconds: number, ceiling: Ceiling): Promise<Row[]> {
  const admin = new DynamoDBClient({ endpoint });
  const client = new DynamoClient({ endpoint });
  const table = `bench-ceiling-${randomUUID()}`;
  try {
    await ensureTable(admin, table);
    const item = (index: number) => ({
      pk: `ITEM#${index % 1000}`,
      sk: 'ITEM',
      payload: 'x'.repeat(200),
    });
    const put = (index: number) => client.put({ TableName: table, Item: item(index) });
    const get = (index: number) =>
      client.get({ TableName: table, Key: { pk: `ITEM#${index % 1000}`, sk: 'ITEM' } });
    const bounds = { seconds, maxOperations: 50_000 };
    const putSequential = await loadLoop(put, { ...bounds, concurrency: 1 });
    const getSequential = await loadLoop(get, { ...bounds, concurrency: 1 });
    const putConcurrent = await loadLoop(put, { ...bounds, concurrency: 8 });
    const getConcurrent = await loadLoop(get, { ...bounds, concurrency: 8 });
    // As many writes in flight as the local delivery queue has attempts (4 batches of 10).
    const putWide = await loadLoop(put, { ...bounds, concurrency: 32 });
    ceiling.dynamoGetP50Ms = percentile(getSequential.latencies, 50);
    ceiling.dynamoPutP50Ms = percentile(putSequential.latencies, 50);
    ceiling.dynamoPutPerSecond = Math.max(putConcurrent.perSecond, putWide.perSecond);
    return [
      rowOf('DynamoDB Local PutItem, 1 in flight', putSequential),
      rowOf('DynamoDB Local GetItem, 1 in flight', getSequential),
      rowOf('DynamoDB Local PutItem, 8 in flight', putConcurrent),
      rowOf('DynamoDB Local GetItem, 8 in flight', getConcurrent),
      rowOf('DynamoDB Local PutItem, 32 in flight', putWide),
    ];
  } finally {
    admin.destroy();
  }
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
        'DynamoDB Local is Java in its own process; its CPU is not in "node CPU ms/op".',
      ],
    },
  };
}
