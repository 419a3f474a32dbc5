import { randomUUID } from 'node:crypto';
import {
  createServer,
  type IncomingMessage,
  request,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { injectedFaultMarker } from '../../../shared/local/faults.js';

/** The errors DynamoDB answers when it sheds load or fails inside, as its JSON protocol sends them. */
export const dynamoFaults = {
  throughput: {
    status: 400,
    type: 'com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException',
    message: 'The level of configured provisioned throughput for the table was exceeded',
  },
  throttling: {
    status: 400,
    type: 'com.amazon.coral.availability#ThrottlingException',
    message: 'Rate of requests exceeds the allowed throughput',
  },
  internal: {
    status: 500,
    type: 'com.amazonaws.dynamodb.v20120810#InternalServerError',
    message: 'Internal server error',
  },
} as const;
export type DynamoFault = keyof typeof dynamoFaults;

export interface Injection {
  /** Share of the matching calls answered with a fault instead of being forwarded (0 to 1). */
  rate: number;
  faults: DynamoFault[];
  /** Only these operations (`TransactWriteItems`, `UpdateItem`, …); every one when undefined. */
  operations?: string[];
}

/** What the proxy did since it started. */
export interface ProxyTally {
  forwarded: number;
  injected: Record<DynamoFault, number>;
  /** Calls whose connection was reset because DynamoDB could not be reached. */
  unreachable: number;
}

/** A small deterministic generator (mulberry32): the same seed injects the same faults. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/**
 * A stand-in for DynamoDB's front door, between the service and DynamoDB Local: it forwards each
 * call, or answers it with the error DynamoDB sends when it throttles or fails inside
 * (`inject`), and resets the connection of a call it cannot forward (DynamoDB Local stopped), as
 * a refused or broken connection looks to the SDK. Each message starts with the injected-fault
 * marker, so a test can hold that none reaches a client.
 */
export class DynamoFaultProxy {
  readonly tally: ProxyTally = {
    forwarded: 0,
    injected: { throughput: 0, throttling: 0, internal: 0 },
    unreachable: 0,
  };
  private injection: Injection | undefined;
  /** Calls held unanswered while DynamoDB is unreachable (`blackhole`). */
  private held: IncomingMessage[] | undefined;
  private readonly random: () => number;
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();

  constructor(
    private readonly upstream: string,
    seed: number,
  ) {
    this.random = seededRandom(seed);
  }

  async start(): Promise<string> {
    this.server = createServer((incoming, outgoing) => {
      void this.handle(incoming, outgoing);
    });
    this.server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
    await new Promise<void>((listening) => this.server!.listen(0, '127.0.0.1', listening));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  inject(injection: Injection): void {
    this.injection = injection;
  }

  /**
   * DynamoDB unreachable without a refusal (a network that drops packets): every call is held
   * unanswered until `heal`, which then resets their connections.
   */
  blackhole(): void {
    this.held ??= [];
  }

  heal(): void {
    this.injection = undefined;
    for (const call of this.held ?? []) call.socket.destroy();
    this.held = undefined;
  }

  get injectedTotal(): number {
    return Object.values(this.tally.injected).reduce((sum, n) => sum + n, 0);
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((closed) =>
      this.server ? this.server.close(() => closed()) : closed(),
    );
  }

  private pickFault(operation: string): DynamoFault | undefined {
    const injection = this.injection;
    if (injection === undefined) return undefined;
    if (injection.operations !== undefined && !injection.operations.includes(operation)) {
      return undefined;
    }
    if (this.random() >= injection.rate) return undefined;
    return injection.faults[Math.floor(this.random() * injection.faults.length)];
  }

  private async handle(incoming: IncomingMessage, outgoing: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of incoming) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    if (this.held !== undefined) {
      this.held.push(incoming);
      return;
    }
    const operation = String(incoming.headers['x-amz-target'] ?? '').split('.')[1] ?? '';
    const fault = this.pickFault(operation);
    if (fault !== undefined) {
      this.tally.injected[fault] += 1;
      const { status, type, message } = dynamoFaults[fault];
      const text = JSON.stringify({ __type: type, message: `${injectedFaultMarker}: ${message}` });
      outgoing.writeHead(status, {
        'content-type': 'application/x-amz-json-1.0',
        'x-amzn-requestid': randomUUID(),
        'content-length': String(Buffer.byteLength(text)),
      });
      outgoing.end(text);
      return;
    }
    const target = new URL(this.upstream);
    const forwarded = request(
      {
        host: target.hostname,
        port: target.port,
        path: incoming.url,
        method: incoming.method,
        headers: { ...incoming.headers, host: target.host },
      },
      (answer) => {
        this.tally.forwarded += 1;
        outgoing.writeHead(answer.statusCode ?? 500, answer.headers);
        answer.pipe(outgoing);
      },
    );
    forwarded.on('error', () => {
      // DynamoDB Local is down: the SDK sees the connection break, as it would.
      this.tally.unreachable += 1;
      incoming.socket.destroy();
    });
    forwarded.end(body);
  }
}
