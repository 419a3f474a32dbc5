import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccountClient } from '../e2e/accounts-support.js';
import { type LocalService, startLocalService } from '../support/local-service.js';
import type { OpenApiDocument } from './fuzz/requests.js';
import { describeFailures, type FuzzReport, runFuzz } from './fuzz/run.js';

/**
 * The fuzz slice of `npm test`: 2,000 requests generated from the served OpenAPI document
 * (`npm run fuzz` sends 20,000 with a fresh seed). A fixed seed keeps CI reproducible;
 * FUZZ_SEED replays another run's failure.
 */
const seed = Number(process.env.FUZZ_SEED ?? 20_261_124);

let service: LocalService;
let report: FuzzReport;

beforeAll(async () => {
  service = await startLocalService();
});

afterAll(async () => {
  await service?.stop();
});

describe('fuzzing the API from its OpenAPI document', () => {
  it('answers 2,000 malformed and hostile requests without a 5xx, each 4xx in the envelope', async () => {
    report = await runFuzz({
      origin: service.origin,
      inboxOrigin: service.inboxOrigin,
      seed,
      count: 2_000,
      concurrency: 4,
    });
    expect(report.failures, describeFailures(report)).toEqual([]);
    expect(report.sent).toBe(2_000);
  }, 300_000);

  it('reached every operation, each signed-in one past its authentication, each receiver past its signature', async () => {
    const document = (await (
      await fetch(`${service.baseUrl}/openapi.json`)
    ).json()) as OpenApiDocument & {
      paths: Record<string, Record<string, { security?: Record<string, unknown>[] }>>;
    };
    const unreached: string[] = [];
    for (const [path, methods] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        const name = `${method.toUpperCase()} ${path}`;
        const answers = report.operations[name] ?? {};
        const schemes = (operation.security ?? []).flatMap((scheme) => Object.keys(scheme));
        // Past authentication, or past a signature: some answer other than the refusal's 401.
        const guarded = schemes.some((scheme) => scheme !== 'apiKey' && scheme !== 'awsSigV4');
        const passed = Object.keys(answers).some((status) => status !== '401');
        if (Object.keys(answers).length === 0 || (guarded && !passed)) unreached.push(name);
      }
    }
    expect(unreached).toEqual([]);
  });

  it('still serves a whole sign-up and login afterwards', async () => {
    const client = new AccountClient(service);
    const { email, password } = await client.verifiedAccount();
    const tokens = await client.login(email, password);
    const profile = await client.call('GET', '/profile', { token: tokens.access_token });
    expect(profile.status).toBe(200);
    expect(profile.body.data.email).toBe(email);
  });
});
