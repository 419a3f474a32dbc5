import { randomInt, randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { type ApiClient, successOf } from '../../shared/http/client/api-client.js';
import type { TokenPair } from '../../shared/http/client/api-types.js';
import { checkContract, checkedApiClient } from '../support/contract.js';
import type { LocalService } from '../support/local-service.js';

/** Small HTTP helpers for the black-box tests. */

export interface Answer {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: response bodies are inspected field by field.
  body: any;
  headers: Headers;
}

export class AccountClient {
  /**
   * The typed client (shared/http/client): paths, bodies and answers typed from the OpenAPI
   * document, every answer checked against it (test/support/contract.ts).
   */
  readonly api: ApiClient;

  constructor(readonly service: LocalService) {
    this.api = checkedApiClient(service.baseUrl);
  }

  /**
   * A request as written, for what the typed client cannot send — malformed JSON, unknown
   * fields, wrong types, another content type; its answer is held to the document too.
   */
  async call(
    method: string,
    path: string,
    options: {
      body?: unknown;
      raw?: string;
      token?: string;
      headers?: Record<string, string>;
      /**
       * The loopback address to send from (`127.0.0.2`, …): the service sees another source IP,
       * so the request is another client's for the rate limiter. @default 127.0.0.1 (via fetch)
       */
      from?: string;
    } = {},
  ): Promise<Answer> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.body !== undefined || options.raw !== undefined) {
      headers['content-type'] ??= 'application/json';
    }
    if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
    const init = {
      method,
      headers,
      body: options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body)),
    };
    const url = `${this.service.baseUrl}${path}`;
    const response =
      options.from === undefined ? await fetch(url, init) : await sendFrom(options.from, url, init);
    const text = await response.text();
    const answer = {
      status: response.status,
      body: text ? JSON.parse(text) : undefined,
      headers: response.headers,
    };
    checkContract(method, path, answer, { headers: new Headers(headers), body: init.body });
    return answer;
  }

  post(path: string, body?: unknown, token?: string): Promise<Answer> {
    return this.call('POST', path, { body, token });
  }

  /** The 6-digit code of the newest message to `to`. */
  async codeFor(to: string): Promise<string> {
    const messages = await this.outbox(to);
    const code = /\b(\d{6})\b/.exec(messages[0]?.text ?? '')?.[1];
    if (code === undefined) throw new Error(`no code in the outbox for ${to}`);
    return code;
  }

  async outbox(to: string): Promise<{ channel: string; subject: string | null; text: string }[]> {
    const response = await fetch(
      `${this.service.origin}/_local/outbox?to=${encodeURIComponent(to)}`,
    );
    return (
      (await response.json()) as {
        data: { channel: string; subject: string | null; text: string }[];
      }
    ).data;
  }

  /** Moves the service's clock forward; answers the service's time after the move (epoch ms). */
  async advanceClock(seconds: number): Promise<number> {
    const response = await fetch(`${this.service.origin}/_local/clock?advance_seconds=${seconds}`, {
      method: 'POST',
    });
    if (response.status !== 200) throw new Error(`clock did not move: ${response.status}`);
    return Date.parse(((await response.json()) as { data: { now: string } }).data.now);
  }

  /**
   * Moves the service's clock to the start of the next minute, so a test that fills a
   * one-minute rate window is not split across two windows by a boundary.
   */
  async startOfNextMinute(): Promise<void> {
    const now = await this.advanceClock(0);
    await this.advanceClock((60_000 - (now % 60_000)) / 1000);
  }

  /** Signs up and verifies a fresh account; returns its credentials and token pair. */
  async verifiedAccount(password = 'correct horse battery'): Promise<{
    email: string;
    password: string;
    tokens: TokenPair;
  }> {
    const email = uniqueEmail();
    await successOf(
      this.api.POST('/auth/signup', { body: { name: 'Ada Lovelace', email, password } }),
    );
    const verified = await successOf(
      this.api.POST('/auth/verify-signup-otp', { body: { email, otp: await this.codeFor(email) } }),
    );
    return { email, password, tokens: verified.data };
  }

  /** An active account whose phone, given at signup, still waits for its SMS code. */
  async accountWithPendingPhone(phone = uniquePhone()): Promise<{
    email: string;
    phone: string;
    accessToken: string;
  }> {
    const email = uniqueEmail();
    await successOf(
      this.api.POST('/auth/signup', {
        body: { name: 'Grace Hopper', email, phone, password: 'correct horse battery' },
      }),
    );
    const verified = await successOf(
      this.api.POST('/auth/verify-signup-otp', { body: { email, otp: await this.codeFor(email) } }),
    );
    return { email, phone, accessToken: verified.data.access_token };
  }

  /** An active account with a verified phone: the activation texted its code, which it entered. */
  async accountWithPhone(): Promise<{ email: string; phone: string; accessToken: string }> {
    const account = await this.accountWithPendingPhone();
    await successOf(
      this.api.POST('/otp/verify/mobile', {
        body: { mobile_number: account.phone, otp: await this.codeFor(account.phone) },
      }),
    );
    return account;
  }

  /** Whether a password signs in to the email: what a stranger is after. */
  async signsIn(email: string, password: string): Promise<boolean> {
    return (await this.post('/auth/login', { email, password })).status === 200;
  }

  /** Every message the outbox holds for a target, as subject + text. */
  async messagesTo(target: string): Promise<string[]> {
    return (await this.outbox(target)).map((message) => `${message.subject ?? ''} ${message.text}`);
  }

  /** The tokens of a password login (an account with a second factor fails the test). */
  async login(email: string, password: string): Promise<TokenPair> {
    const { data } = await successOf(this.api.POST('/auth/login', { body: { email, password } }));
    if ('mfa_required' in data) throw new Error(`${email} asks for a second factor`);
    return data;
  }
}

/**
 * A request from another local address (fetch cannot choose one), answered as a fetch Response.
 */
function sendFrom(
  localAddress: string,
  url: string,
  init: { method: string; headers: Record<string, string>; body: string | undefined },
): Promise<Response> {
  return new Promise((answered, failed) => {
    const outgoing = request(url, { method: init.method, headers: init.headers, localAddress });
    outgoing.on('error', failed);
    outgoing.on('response', (incoming) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('error', failed);
      incoming.on('end', () => {
        const headers = new Headers();
        for (const [name, value] of Object.entries(incoming.headers)) {
          for (const one of [value ?? []].flat()) headers.append(name, one);
        }
        answered(
          new Response(Buffer.concat(chunks), { status: incoming.statusCode ?? 0, headers }),
        );
      });
    });
    outgoing.end(init.body);
  });
}

export const uniqueEmail = () => `ada-${randomUUID().slice(0, 12)}@example.com`;

/** A random valid US number in the 415 area (exchange 200–899 are all valid). */
export const uniquePhone = () => `+1415${randomInt(2_000_000, 9_000_000)}`;
