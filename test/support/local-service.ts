import { type ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { useDynamo } from '../../shared/adapters/dynamodb.js';
import { localDynamoClient } from './local-dynamo-client.js';

export interface LocalService {
  /** Base URL ending in /v1. */
  baseUrl: string;
  /** Origin, for /_local endpoints. */
  origin: string;
  /** Origin of the HTTPS webhook inbox: register `${inboxOrigin}/inbox/<name>`. */
  inboxOrigin: string;
  /** Everything the service printed so far. */
  output(): string;
  stop(): Promise<void>;
  /**
   * Kills the process started (node, or npm with 'npm start') with SIGKILL — no clean-up of its
   * own — and waits for its exit.
   */
  crash(): Promise<void>;
}

const root = resolve(import.meta.dirname, '..', '..');

/**
 * Starts the service as `npm start` does (bin/local.ts; or through npm itself), on a free port with an in-memory
 * DynamoDB Local, and talks to it only over HTTP: a black box.
 */
export async function startLocalService(
  env: Record<string, string> = {},
  launch: 'node' | 'npm start' = 'node',
): Promise<LocalService> {
  const [command, args] =
    launch === 'node'
      ? [process.execPath, ['--import', 'tsx', 'bin/local.ts']]
      : ['npm', ['start', '--silent']];
  const child: ChildProcess = spawn(command, args, {
    cwd: root,
    env: {
      ...process.env,
      PORT: '0',
      LOCAL_INBOX_PORT: '0',
      LOCAL_DATA_DIR: 'memory',
      LOG_LEVEL: 'warn',
      RATE_LIMIT_PER_MINUTE: '100000',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  // Ready once both start-up lines are out (they may arrive in separate chunks). A bound, not a
  // wait: an idle machine starts in seconds, a loaded one (Java beside other suites) in minutes.
  const [baseUrl, inboxOrigin] = await new Promise<[string, string]>((ready, failed) => {
    const timer = setTimeout(
      () => failed(new Error(`local service did not start:\n${output}`)),
      150_000,
    );
    const check = () => {
      const api = /listening on (http:\/\/\S+\/v1)/.exec(output)?.[1];
      const inbox = /Webhook inbox at (https:\/\/\S+?)\/inbox\//.exec(output)?.[1];
      if (api !== undefined && inbox !== undefined) {
        clearTimeout(timer);
        ready([api, inbox]);
      }
    };
    child.stdout?.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      failed(new Error(`local service exited with ${code}:\n${output}`));
    });
  });
  return {
    baseUrl,
    origin: new URL(baseUrl).origin,
    inboxOrigin,
    output: () => output,
    stop: () => ended('SIGTERM'),
    crash: () => ended('SIGKILL'),
  };

  async function ended(signal: NodeJS.Signals): Promise<void> {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((done) => child.once('exit', done));
    child.kill(signal);
    await exited;
  }
}

/** The endpoint of the service's DynamoDB Local, as its start-up line names it. */
export function serviceTableEndpoint(service: LocalService): string {
  const endpoint = /DynamoDB Local at (http:\/\/\S+?)\)/.exec(service.output())?.[1];
  if (endpoint === undefined) throw new Error(`no DynamoDB endpoint in:\n${service.output()}`);
  return endpoint;
}

/**
 * Points this test process's repositories at the service's own DynamoDB Local and table, so a
 * black-box test can read the state and audit the service wrote.
 */
export function useServiceTable(service: LocalService): void {
  const endpoint = serviceTableEndpoint(service);
  process.env.TABLE_NAME = 'service-local';
  useDynamo(localDynamoClient(endpoint));
}
