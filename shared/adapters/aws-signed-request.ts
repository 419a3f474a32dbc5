import { createHash, createHmac } from 'node:crypto';
import { Agent as HttpAgent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

/**
 * One signed POST to an AWS API, with the retries and bounds the SDK's clients gave us: the
 * transport under our own DynamoDB, SQS, SNS, SES and Scheduler clients (dynamodb-client.ts,
 * sqs-client.ts, sns-client.ts, ses-client.ts, scheduler-client.ts), which replace the SDK's
 * because its per-call machinery and its ~330 KiB of client code cost CPU on every call and time
 * at every cold start (docs/performance.md).
 *
 * What the SDK did that matters is done here once: region and credentials from the environment
 * (Lambda sets AWS_REGION, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN), the
 * endpoint override variables, SigV4 (checked byte for byte against the SDK's signer in the
 * tests), keep-alive connections, and up to three attempts with jittered backoff for throttling,
 * 5xx and network failures, each attempt bounded.
 */

export interface Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

export interface AwsClientOptions {
  /** @default the service's endpoint override variables, else the region's endpoint */
  endpoint?: string;
  /** @default AWS_REGION, AWS_DEFAULT_REGION, else us-east-1 when an endpoint is given */
  region?: string;
  /** @default AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN */
  credentials?: Credentials;
}

/** What differs between the services this transport speaks to. */
export interface AwsService {
  /** As people name it, for messages: `DynamoDB`. */
  title: string;
  /** Its signing name, also the first label of its regional endpoint unless `endpointPrefix`. */
  signingName: string;
  /** The first label of its regional endpoint when not the signing name: SES's is `email`. */
  endpointPrefix?: string;
  /** The variables that override its endpoint, first match wins. */
  endpointVariables: readonly string[];
  /** Error names worth another attempt besides any 5xx: throttling, mostly. */
  retryable: ReadonlySet<string>;
}

/**
 * An error an AWS API answered, named as it names it (`ValidationException`, `InvalidParameter`),
 * with its HTTP status. Not called `statusCode`: the API's error mapper takes an error with a 4xx
 * `statusCode` for a refused request body (middy's), so a throttling AWS answer (a 400 once the
 * retries are spent) would become "body must be valid JSON" — a 400 the client does not retry —
 * instead of a 500.
 */
export class AwsError extends Error {
  constructor(
    override readonly name: string,
    message: string,
    readonly httpStatus: number,
  ) {
    super(message);
  }
}

/** An answer as it came: the service's client reads it (and throws AwsError for a refusal). */
export interface AwsResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

export interface AwsRequest {
  /** The service-specific headers, lower-case: `content-type`, `x-amz-target`. */
  headers: Record<string, string>;
  body: string;
  /** Names the call in a timeout's message: `SendMessage`. */
  what: string;
  /** Where this one call goes, when not the client's endpoint (SQS: the queue URL's origin). */
  endpoint?: URL;
  /** The request's path, its segments encoded: `/schedules/my-schedule` (REST APIs). */
  path?: string;
}

/** Attempts per call, the first included (the SDK's standard mode). */
const maxAttempts = 3;
/**
 * One attempt's budget, connection included. These APIs answer in milliseconds; three attempts
 * and their backoff stay under a function's 10 s timeout, so a hung connection fails the call
 * rather than the whole invocation.
 */
const attemptTimeoutMs = 3_000;

/** A network failure worth another attempt: a reset keep-alive connection, a refused one, … */
const retryableNetworkCodes = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ETIMEDOUT',
  'EAI_AGAIN',
]);

export const env = (name: string): string | undefined => {
  const value = process.env[name];
  return value === undefined || value === '' ? undefined : value;
};

/**
 * RFC 3986 encoding, as the SDK's (`encodeURIComponent`, and `!'()*` too): query-protocol
 * fields, REST path segments, and those paths again in the signature's canonical request.
 */
export const encodeRfc3986 = (value: string) =>
  encodeURIComponent(value).replace(
    /[!'()*]/g,
    (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`,
  );

const hex = (data: string) => createHash('sha256').update(data, 'utf8').digest('hex');
const hmac = (key: Buffer | string, data: string) =>
  createHmac('sha256', key).update(data, 'utf8').digest();

/**
 * The body of a JSON-protocol answer (DynamoDB, SQS, Scheduler); a refusal as `refused(name,
 * message, status)` makes it. The error's name is where the SDK looks for it: the
 * `x-amzn-errortype` header (REST APIs: `ConflictException:http://…`), else the body's `code`
 * or `__type` (`namespace#Name`). `reviver` is JSON.parse's.
 */
export function jsonAnswerOf(
  what: string,
  { status, headers, text }: AwsResponse,
  refused: (name: string, message: string, status: number, body: Record<string, unknown>) => Error,
  reviver?: (key: string, value: unknown) => unknown,
): Record<string, unknown> {
  let body: Record<string, unknown>;
  try {
    body = text === '' ? {} : (JSON.parse(text, reviver) as Record<string, unknown>);
  } catch {
    throw refused('InvalidResponse', `${what}: HTTP ${status}`, status, {});
  }
  if (status >= 200 && status < 300) return body;
  const name =
    String(headers['x-amzn-errortype'] ?? body.code ?? body.__type ?? `HTTP${status}`)
      .split(':')[0]!
      .split('#')
      .pop() ?? 'UnknownError';
  throw refused(name, String(body.message ?? body.Message ?? name), status, body);
}

export class SignedAwsClient {
  readonly region: string;
  private readonly endpoint: URL;
  private readonly agents: { 'http:'?: HttpAgent; 'https:'?: HttpsAgent } = {};
  private credentials: Credentials | undefined;
  private signingKey: { date: string; key: Buffer } | undefined;

  constructor(
    private readonly service: AwsService,
    private readonly options: AwsClientOptions = {},
  ) {
    const endpoint = options.endpoint ?? service.endpointVariables.map(env).find(Boolean);
    const region =
      options.region ??
      env('AWS_REGION') ??
      env('AWS_DEFAULT_REGION') ??
      (endpoint === undefined ? undefined : 'us-east-1');
    if (region === undefined) {
      throw new Error(`${service.title} needs a region: AWS_REGION is not set`);
    }
    this.region = region;
    this.endpoint = new URL(
      endpoint ??
        `https://${service.endpointPrefix ?? service.signingName}.${region}.${region.startsWith('cn-') ? 'amazonaws.com.cn' : 'amazonaws.com'}`,
    );
  }

  /**
   * Sends `request` until `read` accepts an answer, a refusal is not worth retrying, or the
   * attempts are spent. `read` throws AwsError for a refusal; it runs inside the retries.
   */
  async send<T>(request: AwsRequest, read: (response: AwsResponse) => T): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return read(await this.attempt(request));
      } catch (error) {
        if (attempt >= maxAttempts || !this.isRetryable(error)) throw error;
        // Full jitter on an exponential base: retries of many callers spread out.
        await new Promise((resume) => setTimeout(resume, Math.random() * 50 * 2 ** attempt));
      }
    }
  }

  private isRetryable(error: unknown): boolean {
    if (error instanceof AwsError) {
      return (
        error.httpStatus >= 500 ||
        error.httpStatus === 429 ||
        this.service.retryable.has(error.name)
      );
    }
    return retryableNetworkCodes.has((error as NodeJS.ErrnoException).code ?? '');
  }

  /** One pool per client and protocol: every call after the first reuses a connection. */
  private agentFor(protocol: string): HttpAgent {
    if (protocol === 'http:') {
      this.agents['http:'] ??= new HttpAgent({ keepAlive: true, maxSockets: 64 });
      return this.agents['http:'];
    }
    this.agents['https:'] ??= new HttpsAgent({ keepAlive: true, maxSockets: 64 });
    return this.agents['https:'];
  }

  private attempt({ headers, body, what, endpoint = this.endpoint, path = '/' }: AwsRequest) {
    const signed = this.signedHeaders(endpoint.host, path, headers, body);
    const request = endpoint.protocol === 'http:' ? httpRequest : httpsRequest;
    return new Promise<AwsResponse>((resolve, reject) => {
      const outgoing = request(
        {
          protocol: endpoint.protocol,
          hostname: endpoint.hostname,
          port: endpoint.port,
          path,
          method: 'POST',
          agent: this.agentFor(endpoint.protocol),
          headers: signed,
          timeout: attemptTimeoutMs,
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('error', reject);
          response.on('end', () =>
            resolve({
              status: response.statusCode ?? 0,
              headers: response.headers,
              text: Buffer.concat(chunks).toString('utf8'),
            }),
          );
        },
      );
      outgoing.on('timeout', () =>
        outgoing.destroy(
          Object.assign(new Error(`${what}: no answer within ${attemptTimeoutMs} ms`), {
            code: 'ETIMEDOUT',
          }),
        ),
      );
      outgoing.on('error', reject);
      outgoing.end(body);
    });
  }

  /** SigV4 (docs: "Create a signed AWS API request"): the headers of one request, signed. */
  private signedHeaders(
    host: string,
    path: string,
    own: Record<string, string>,
    payload: string,
  ): Record<string, string> {
    this.credentials ??= this.options.credentials ?? this.credentialsFromEnvironment();
    const { accessKeyId, secretAccessKey, sessionToken } = this.credentials;
    const amzDate = new Date().toISOString().replace(/[-:]|\.\d{3}/g, '');
    const date = amzDate.slice(0, 8);
    const payloadHash = hex(payload);
    // The headers the SDK signs, the payload's hash included; all lower-case already.
    const headers: Record<string, string> = {
      ...own,
      host,
      'x-amz-content-sha256': payloadHash,
      'x-amz-date': amzDate,
      ...(sessionToken === undefined ? {} : { 'x-amz-security-token': sessionToken }),
    };
    const names = Object.keys(headers).sort();
    const canonicalRequest = [
      'POST',
      // Encoded again, as the SDK's signer does for every service but S3.
      encodeRfc3986(path).replace(/%2F/g, '/'),
      '',
      ...names.map((name) => `${name}:${headers[name]}`),
      '',
      names.join(';'),
      payloadHash,
    ].join('\n');
    const { signingName } = this.service;
    const scope = `${date}/${this.region}/${signingName}/aws4_request`;
    const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, hex(canonicalRequest)].join('\n');
    if (this.signingKey?.date !== date) {
      const dated = hmac(`AWS4${secretAccessKey}`, date);
      this.signingKey = {
        date,
        key: hmac(hmac(hmac(dated, this.region), signingName), 'aws4_request'),
      };
    }
    const signature = createHmac('sha256', this.signingKey.key).update(stringToSign).digest('hex');
    headers.authorization = `AWS4-HMAC-SHA256 Credential=${accessKeyId}/${scope}, SignedHeaders=${names.join(';')}, Signature=${signature}`;
    headers['content-length'] = String(Buffer.byteLength(payload));
    return headers;
  }

  private credentialsFromEnvironment(): Credentials {
    const accessKeyId = env('AWS_ACCESS_KEY_ID');
    const secretAccessKey = env('AWS_SECRET_ACCESS_KEY');
    if (accessKeyId === undefined || secretAccessKey === undefined) {
      throw new Error(
        `${this.service.title} needs credentials in the environment: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (Lambda sets them; the local runtime sets dummy ones)`,
      );
    }
    return { accessKeyId, secretAccessKey, sessionToken: env('AWS_SESSION_TOKEN') };
  }
}
