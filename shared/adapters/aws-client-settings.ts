import { StandardRetryStrategy } from '@smithy/core/retry';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import type { AuthScheme, RequestSigner, RetryErrorInfo, StandardRetryToken } from '@smithy/types';

/**
 * How every AWS SDK client of the service is built: the AWS SDK v3 clients, configured lean,
 * the SDK's own way (docs/performance.md, "AWS SDK clients, lean"). What is not here is the
 * SDK's default, on purpose: its endpoint rules (and the endpoint variables, FIPS and dual-stack
 * settings they read), its SigV4 signer with clock-skew correction, its user agent, its request
 * ids on every error. Credentials come from the environment: in a Lambda bundle the default
 * credential chain is the environment provider alone (infra/bundle-shims); the local runtime and
 * the tests set placeholder ones.
 */

/**
 * Bounds of one attempt: connecting (DNS, TCP and TLS), then the socket's silence while the
 * request is sent and answered. These APIs answer in milliseconds; with the standard retry
 * mode's backoff a call stays within the seconds a function has, so a hung connection fails the
 * call rather than the whole invocation. No bound on the whole request: the SDK's request timeout
 * counts from before a pooled socket is free, so a burst of calls (a fan-out's batches) would time
 * out while waiting its turn, not on the service.
 */
export interface AttemptBounds {
  /** @default 3000 */
  connectionTimeoutMs?: number;
  /** @default 3000: the longest the connection may stay silent once the request is under way */
  silenceTimeoutMs?: number;
  /**
   * Sockets the client keeps open to its service at most; a call beyond waits for one, and that
   * wait counts towards `connectionTimeoutMs`. A function instance on AWS makes a batch's calls
   * at most at once, far below it. @default 64
   */
  maxSockets?: number;
}

/**
 * How a call that failed is retried:
 * - `standard`: the SDK's standard mode — throttling backs off from 1 s, 5xx, timeouts and
 *   network failures from 50 ms (DynamoDB: 25 ms), `Retry-After` honoured, within a retry quota;
 *   3 attempts (DynamoDB: 4);
 * - `once-sent`: the same, except that an attempt which timed out after its request was sent is
 *   not repeated. For SNS Publish and SES SendEmail, which are not idempotent: that attempt may
 *   have texted or mailed, and a repeat would text or mail twice. Throttling and 5xx answers
 *   (the service says it did not act) and failures to connect are still retried.
 */
export type Retries = 'standard' | 'once-sent';

export interface ClientSettings extends AttemptBounds {
  /** @default 'standard' */
  retries?: Retries;
  /** Attempts of one call, the first included. @default the SDK's: 3 (DynamoDB: 4) */
  maxAttempts?: number;
  /** @default the SDK's: the endpoint variables (`AWS_ENDPOINT_URL_<SERVICE>`), else the region's */
  endpoint?: string;
  /**
   * Resolve the middleware stack once per command class and reuse it (the SDK's
   * `cacheMiddleware`): about a quarter less CPU per call (docs/performance.md). The stack is then
   * fixed at the first call of each command. The DocumentClient refuses it (its commands keep
   * their own input in the resolved handler): the DynamoDB kit sends through the low-level
   * client, which takes it, and builds its DocumentClient without (dynamodb-calls.ts).
   * @default true
   */
  cacheMiddleware?: boolean;
}

const defaultTimeoutMs = 3_000;

/**
 * The SDK's socket timeout (@smithy/node-http-handler): the connection went silent once made, its
 * request sent or being sent. Its connection timeout, refused connections and resets of an idle
 * keep-alive socket are raised before the service could act on anything.
 */
const silentAfterConnecting = /of inactivity/;

/** Whether a failed attempt may have reached the service and been acted on, unanswered. */
export const mayHaveActed = (error: unknown): boolean =>
  error instanceof Error &&
  error.name === 'TimeoutError' &&
  silentAfterConnecting.test(error.message);

/** The standard retry mode, but never after an attempt that may have acted (`once-sent`). */
class RetryUnlessSent extends StandardRetryStrategy {
  override refreshRetryTokenForRetry(
    token: StandardRetryToken,
    errorInfo: RetryErrorInfo,
  ): Promise<StandardRetryToken> {
    // The retry middleware then throws the attempt's own error.
    if (mayHaveActed(errorInfo.error)) return Promise.reject(errorInfo.error);
    return super.refreshRetryTokenForRetry(token, errorInfo);
  }
}

/** The configuration every SDK client of the service is built with (`new SNSClient(…)`). */
export function clientSettings(settings: ClientSettings = {}) {
  // Keep-alive: every call after the first reuses a socket.
  const agent = { keepAlive: true, maxSockets: settings.maxSockets ?? 64 };
  return {
    ...(settings.endpoint === undefined ? {} : { endpoint: settings.endpoint }),
    requestHandler: new NodeHttpHandler({
      connectionTimeout: settings.connectionTimeoutMs ?? defaultTimeoutMs,
      socketTimeout: settings.silenceTimeoutMs ?? defaultTimeoutMs,
      httpAgent: agent,
      httpsAgent: agent,
    }),
    ...(settings.retries === 'once-sent'
      ? { retryStrategy: new RetryUnlessSent(settings.maxAttempts ?? 3) }
      : { retryMode: 'standard' }),
    ...(settings.maxAttempts === undefined ? {} : { maxAttempts: settings.maxAttempts }),
    cacheMiddleware: settings.cacheMiddleware ?? true,
  };
}

/** A client as the SDK resolves it: its signer built by the SDK from its configuration. */
interface SigningClient {
  config: { signer: (authScheme?: AuthScheme) => Promise<RequestSigner> };
}

/**
 * Builds the SDK's own SigV4 signer once per signing region and service, where the SDK builds
 * it again for every request — copying the whole client configuration twice each time
 * (@aws-sdk/core's `resolveAwsSdkSigV4Config`). Kept, a GetItem's CPU went from 0.75–0.95 to
 * 0.61–0.71 ms (docs/performance.md, "One signer per client"). Nothing a signature depends on
 * is frozen: the signer asks the client's credential provider for each request, and the SDK
 * hands it each request's date, corrected for the clock skew it learnt from AWS's answers. A
 * signer that could not be built is built again for the next request.
 */
export function signingWithOneSigner<Client extends SigningClient>(client: Client): Client {
  const build = client.config.signer;
  const signers = new Map<string, Promise<RequestSigner>>();
  client.config.signer = (authScheme) => {
    const key = `${authScheme?.name}/${authScheme?.signingRegion}/${authScheme?.signingName}`;
    let signer = signers.get(key);
    if (signer === undefined) {
      signer = build(authScheme);
      signers.set(key, signer);
      signer.catch(() => signers.delete(key));
    }
    return signer;
  };
  return client;
}
