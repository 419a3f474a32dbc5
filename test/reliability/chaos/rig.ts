import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DynamoDbLocal, startDynamoDbLocal } from '../../../shared/local/dynamodb-local.js';
import type { CallTally, StandInService } from '../../../shared/local/faults.js';
import { freePort } from '../../../shared/local/free-port.js';
import {
  makeTestCertificate,
  type ReceivedRequest,
  type TestCertificate,
  TestReceiver,
} from '../../e2e/webhooks-receiver.js';
import { type LocalService, startLocalService } from '../../support/local-service.js';
import { type ConsistencyReport, checkConsistency, scanTable } from '../consistency.js';
import { gatewayBSecret, type Ledger } from '../journeys.js';
import { Caller, Recorder } from '../workload.js';
import { DynamoFaultProxy } from './dynamo-proxy.js';

/**
 * The retry ladder of the service under chaos: two attempts, the second beyond what SQS can delay
 * (900 s), so that it goes through EventBridge Scheduler's stand-in.
 */
export const chaosLadder = '0,1000';

/** The table the local runtime creates. */
const tableName = 'service-local';

export interface FaultReport {
  failing: StandInService[];
  calls: Record<StandInService, CallTally>;
}

/**
 * Everything a chaos scenario acts on: the service as `npm start` runs it, in front of a DynamoDB
 * Local this rig owns (kept on disk, so it can be stopped and started again with its data) behind
 * a proxy that injects DynamoDB's errors; the service's stand-ins for SES, SNS, SQS and Scheduler,
 * failed on demand over `/_local/faults`; and HTTPS webhook receivers — one whose certificate the
 * service trusts, which answers by path (slow, hanging, resetting, redirecting, 50 MiB), and one
 * whose certificate it does not.
 */
export class ChaosRig {
  readonly recorder = new Recorder(false);
  readonly caller: Caller;

  private constructor(
    readonly service: LocalService,
    readonly proxy: DynamoFaultProxy,
    private dynamo: DynamoDbLocal,
    private readonly dynamoPort: number,
    private readonly dataDirectory: string,
    readonly receiver: TestReceiver,
    readonly untrusted: TestReceiver,
    private readonly certificates: TestCertificate[],
  ) {
    this.caller = new Caller(service.origin, this.recorder);
  }

  static async start(seed: number, env: Record<string, string> = {}): Promise<ChaosRig> {
    const dataDirectory = mkdtempSync(join(tmpdir(), 'chaos-dynamodb-'));
    const dynamoPort = await freePort();
    const dynamo = await startDynamoDbLocal(dynamoPort, dataDirectory);
    const proxy = new DynamoFaultProxy(dynamo.endpoint, seed);
    const proxyEndpoint = await proxy.start();
    const trusted = makeTestCertificate();
    const stranger = makeTestCertificate();
    const receiver = new TestReceiver();
    const untrusted = new TestReceiver();
    await Promise.all([receiver.start(trusted), untrusted.start(stranger)]);
    const service = await startLocalService({
      LOCAL_DYNAMODB_ENDPOINT: proxyEndpoint,
      WEBHOOK_ALLOW_PRIVATE_NETWORK: 'true',
      NODE_EXTRA_CA_CERTS: trusted.caFile,
      GATEWAY_B_WEBHOOK_SECRET: gatewayBSecret,
      WEBHOOK_RETRY_DELAYS: chaosLadder,
      // Failures are the point here: only what nobody expected is printed.
      LOG_LEVEL: process.env.CHAOS_LOG_LEVEL ?? 'silent',
      ...env,
    });
    return new ChaosRig(service, proxy, dynamo, dynamoPort, dataDirectory, receiver, untrusted, [
      trusted,
      stranger,
    ]);
  }

  /** Stops DynamoDB Local (its data stays on disk). */
  async stopDynamo(): Promise<void> {
    await this.dynamo.stop();
  }

  /** Starts DynamoDB Local again, on the same port and data. */
  async restartDynamo(): Promise<void> {
    this.dynamo = await startDynamoDbLocal(this.dynamoPort, this.dataDirectory);
  }

  /** Makes the named stand-ins fail (true) or work (false); answers the tallies. */
  async setFaults(changes: Partial<Record<StandInService, boolean>>): Promise<FaultReport> {
    const answer = await this.caller.send('PUT', '/_local/faults', { body: changes });
    if (answer.status !== 200) throw new Error(`faults not set: ${answer.text}`);
    return answer.body.data as FaultReport;
  }

  async faults(): Promise<FaultReport> {
    return (await this.caller.send('GET', '/_local/faults')).body.data as FaultReport;
  }

  /** Moves the service's clock forward. */
  async advanceClock(seconds: number): Promise<void> {
    const answer = await this.caller.send('POST', `/_local/clock?advance_seconds=${seconds}`);
    if (answer.status !== 200) throw new Error(`clock did not move: ${answer.text}`);
  }

  /**
   * Handler invocations that threw instead of answering: the runtime answers them with its own
   * 500, but on AWS they are a 502 from API Gateway or the Function URL, outside the envelope.
   */
  crashes(): number {
    return this.service.output().split('local runtime: handler crashed').length - 1;
  }

  /** What the receivers got, for the endpoint URL they serve. */
  receivedAt(url: string): ReceivedRequest[] | undefined {
    if (url.startsWith(this.receiver.origin)) return this.receiver.received;
    if (url.startsWith(this.untrusted.origin)) return this.untrusted.received;
    return undefined;
  }

  /** The stored state held to the ledger (read straight from DynamoDB Local, not the proxy). */
  async consistency(ledger: Ledger, expectFinished = true): Promise<ConsistencyReport> {
    const items = await scanTable(this.dynamo.endpoint, tableName);
    return checkConsistency(items, ledger, (url) => this.receivedAt(url), { expectFinished });
  }

  async close(): Promise<void> {
    this.caller.close();
    await this.service.stop();
    await Promise.all([
      this.proxy.close(),
      this.dynamo.stop(),
      this.receiver.stop(),
      this.untrusted.stop(),
    ]);
    for (const certificate of this.certificates) certificate.remove();
    rmSync(this.dataDirectory, { recursive: true, force: true });
  }
}
