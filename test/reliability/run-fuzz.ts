/**
 * `npm run fuzz`: the full fuzz run against a fresh local runtime (or FUZZ_ORIGIN, a running one).
 *   FUZZ_COUNT        requests to send (default 20,000)
 *   FUZZ_SEED         replays a run (default: a fresh seed, printed first)
 *   FUZZ_CONCURRENCY  requests in flight (default 4)
 * Exits non-zero when any answer breaks a rule, printing the seed and each bad request.
 */
import { randomInt } from 'node:crypto';
import { AccountClient } from '../e2e/accounts-support.js';
import { startLocalService } from '../support/local-service.js';
import { describeFailures, runFuzz } from './fuzz/run.js';

const seed = Number(process.env.FUZZ_SEED ?? randomInt(2 ** 31));
const count = Number(process.env.FUZZ_COUNT ?? 20_000);
const concurrency = Number(process.env.FUZZ_CONCURRENCY ?? 4);
console.log(`fuzz: seed ${seed}, ${count} requests, ${concurrency} in flight`);

const service = process.env.FUZZ_ORIGIN === undefined ? await startLocalService() : undefined;
const origin = process.env.FUZZ_ORIGIN ?? service!.origin;
const started = performance.now();
try {
  const report = await runFuzz({
    origin,
    inboxOrigin: service?.inboxOrigin,
    seed,
    count,
    concurrency,
  });
  const seconds = (performance.now() - started) / 1000;
  console.log(
    `fuzz: ${report.sent} requests in ${seconds.toFixed(1)} s; answers by status: ${JSON.stringify(report.statuses)}`,
  );
  console.log(
    `fuzz: ${Object.keys(report.operations).length - 1} operations (and stray requests), each with ${Math.min(
      ...Object.values(report.operations).map((answers) =>
        Object.values(answers).reduce((sum, n) => sum + n, 0),
      ),
    )} requests or more`,
  );
  let healthy = true;
  if (service !== undefined) {
    // Must hold afterwards: the service still answers a whole sign-up and login normally.
    const client = new AccountClient(service);
    const { email, password } = await client.verifiedAccount();
    healthy = (await client.login(email, password)).user.email === email;
    console.log(`fuzz: a sign-up and login afterwards ${healthy ? 'worked' : 'FAILED'}`);
  }
  if (report.failures.length > 0) console.error(describeFailures(report));
  process.exitCode = report.failures.length > 0 || !healthy ? 1 : 0;
} finally {
  await service?.stop();
}
