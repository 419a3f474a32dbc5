/**
 * `npm start`: the whole service on http://localhost:3000/v1 with an embedded DynamoDB Local.
 *   PORT             HTTP port (default 3000; 0 picks a free one)
 *   LOCAL_INBOX_PORT HTTPS port of the webhook inbox (default 3443; 0 picks a free one)
 *   LOCAL_DATA_DIR   where DynamoDB Local keeps data (default .local-data); "memory" keeps none
 *   LOCAL_DYNAMODB_ENDPOINT  a DynamoDB (Local) already running, used instead of starting one
 *   LOCAL_DELIVERY_CONCURRENCY  webhook worker invocations at once (default: as deployed, 250)
 * Every other setting is read from the environment as on AWS (docs/configuration.md).
 */

// Lambda runs Node 22; on a Node 20 workstation the SDK's upgrade notice is noise.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
const { startLocalRuntime } = await import('../shared/local/runtime.js');
const table = await import('../functions/routes.js');

const dataDirectory = process.env.LOCAL_DATA_DIR ?? '.local-data';
const deliveryConcurrency = process.env.LOCAL_DELIVERY_CONCURRENCY;
if (deliveryConcurrency !== undefined && !/^[1-9]\d*$/.test(deliveryConcurrency)) {
  console.error('npm start: LOCAL_DELIVERY_CONCURRENCY must be a whole number of at least 1');
  process.exit(1);
}
const runtime = await startLocalRuntime({
  table,
  port: Number(process.env.PORT ?? 3000),
  inboxPort: Number(process.env.LOCAL_INBOX_PORT ?? 3443),
  dataDirectory: dataDirectory === 'memory' ? undefined : dataDirectory,
  dynamoEndpoint: process.env.LOCAL_DYNAMODB_ENDPOINT,
  deliveryConcurrency: deliveryConcurrency === undefined ? undefined : Number(deliveryConcurrency),
}).catch((error: unknown) => {
  // Start-up problems (a busy port) in one line, not a stack trace.
  console.error(`npm start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await runtime.close();
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);

// `npm start` runs this through a shell, and a SIGTERM sent to npm (a process manager's stop)
// ends that shell without reaching us. A new parent means we were left behind: stop as well.
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) void stop();
}, 500).unref();
