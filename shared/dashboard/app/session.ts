import {
  type Answer,
  type ApiClient,
  ApiError,
  bearer,
  type SuccessOf,
  successOf,
} from '../../http/client/api-client.js';
import { api, createDashboardClient, type TokenPair, type User } from './api.js';

/**
 * The signed-in state. The access token lives in memory only; the refresh token in
 * sessionStorage, so it survives a reload of this tab but not the browser session, and no other
 * tab or site reads it. The access token is refreshed a minute before it expires, and once more
 * when the API says it is no longer valid.
 */

const refreshKey = 'dashboard.refresh_token';
const refreshAheadMs = 60_000;

type Listener = (user: User | undefined) => void;

export class Session {
  #accessToken: string | undefined;
  #user: User | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #refreshing: Promise<boolean> | undefined;
  #listeners = new Set<Listener>();
  /** Calls as the signed-in user: each request carries the access token of that moment. */
  readonly #api: ApiClient = createDashboardClient();

  /** The service's clock minus this browser's, from the `Date` of the API's latest answer. */
  #clockOffsetMs = 0;

  constructor() {
    this.#api.use({
      onRequest: ({ request }) => {
        if (this.#accessToken !== undefined) {
          request.headers.set('authorization', bearer(this.#accessToken).authorization);
        }
      },
      onResponse: ({ response }) => {
        const date = Date.parse(response.headers.get('date') ?? '');
        // To the second, as the header is: an offset under a second is this browser's own.
        if (!Number.isNaN(date)) {
          const offset = date - Date.now();
          this.#clockOffsetMs = Math.abs(offset) < 1_000 ? 0 : offset;
        }
      },
    });
  }

  /**
   * The service's time: what "today" and "2 min ago" count from. It is this browser's unless the
   * service's clock runs elsewhere (the local runtime's can be moved forward).
   */
  now(): number {
    return Date.now() + this.#clockOffsetMs;
  }

  get user(): User | undefined {
    return this.#user;
  }

  onChange(listener: Listener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Signs in with a token response (login, signup verification). */
  start(tokens: TokenPair): void {
    this.#accessToken = tokens.access_token;
    sessionStorage.setItem(refreshKey, tokens.refresh_token);
    this.#scheduleRefresh(tokens.expires_in);
    this.setUser(tokens.user);
  }

  setUser(user: User | undefined): void {
    this.#user = user;
    for (const listener of this.#listeners) listener(user);
  }

  /** After a reload: the tab's refresh token, if any, signs it in again. */
  async resume(): Promise<boolean> {
    return sessionStorage.getItem(refreshKey) === null ? false : this.refresh();
  }

  /** One rotation at a time: concurrent callers share it (the token is single use). */
  refresh(): Promise<boolean> {
    this.#refreshing ??= this.#rotate().finally(() => {
      this.#refreshing = undefined;
    });
    return this.#refreshing;
  }

  async #rotate(): Promise<boolean> {
    const refreshToken = sessionStorage.getItem(refreshKey);
    if (refreshToken === null) return false;
    try {
      const { data } = await successOf(
        api.POST('/auth/refresh-token', { body: { refresh_token: refreshToken } }),
      );
      this.start(data);
      return true;
    } catch (error) {
      // A refused token ends the session; a network failure keeps it for the next try.
      if (error instanceof ApiError && error.status !== 0) this.clear();
      return false;
    }
  }

  #scheduleRefresh(expiresInSeconds: number): void {
    clearTimeout(this.#timer);
    const delay = Math.max(expiresInSeconds * 1000 - refreshAheadMs, 5_000);
    this.#timer = setTimeout(() => void this.refresh(), delay);
  }

  /**
   * An authenticated call, `send(api)`, answered with its success envelope; refreshes once and
   * sends it again when the access token was refused.
   */
  async call<A extends Answer>(send: (api: ApiClient) => Promise<A>): Promise<SuccessOf<A>> {
    try {
      return await successOf(send(this.#api));
    } catch (error) {
      // Only a refused token is worth a refresh: a wrong current password is a 401 too.
      const tokenRefused =
        error instanceof ApiError &&
        (error.code === 'unauthorized' || error.code === 'invalid_token');
      if (!tokenRefused || !(await this.refresh())) throw error;
      return successOf(send(this.#api));
    }
  }

  async signOut(): Promise<void> {
    const token = this.#accessToken;
    this.clear();
    if (token === undefined) return;
    await api.POST('/auth/logout', { headers: bearer(token) }).catch(() => undefined);
  }

  clear(): void {
    clearTimeout(this.#timer);
    this.#accessToken = undefined;
    sessionStorage.removeItem(refreshKey);
    this.setUser(undefined);
  }
}
