import { randomUUID } from 'node:crypto';
import { hugeBodyBytes, slowAnswerMs } from '../../e2e/webhooks-receiver.js';
import { eventually } from '../../support/eventually.js';
import type { ConsistencyReport } from '../consistency.js';
import {
  type Account,
  type JourneyOptions,
  journey,
  type Ledger,
  newLedger,
  publishOrder,
  receivePayment,
  registerEndpoint,
  signUp,
  useAccount,
} from '../journeys.js';
import { type ChaosRig, chaosLadder } from './rig.js';

/**
 * The chaos scenarios: each runs users' journeys (signup to password reset, publications with
 * deliveries, inbound payments) while one dependency fails, heals it, lets the queued work finish
 * and holds the outcome to the rules of docs/reliability.md — no half-applied request, every
 * failure a clear error envelope and never a hang, queued work done once the dependency is back, every attempt
 * recorded once with its outcome.
 */

export interface ScenarioScale {
  /** Account journeys (signup, activation, login, refresh, reads, SMS code, password reset). */
  journeys: number;
  /** Order events published to a webhook owner's two endpoints. */
  publications: number;
  /** Signed gateway payments received (each published on to the owner). */
  payments: number;
  /** How long the dependency stays down while traffic flows. */
  faultMs: number;
}

export interface ScenarioFigures {
  name: string;
  requests: number;
  /** Faults injected: calls failed by the proxy or the stand-ins, or seconds DynamoDB was down. */
  faultsInjected: number;
  fiveHundreds: number;
  /** Answers that broke a rule (outside the envelope, internals shown, no answer in time). */
  badAnswers: number;
  /** Work a client was told was done that is missing, or done twice. */
  lostOrDoubled: number;
  /** Signups whose retry met their own first try (activated without a password, then reset). */
  contested: number;
  /** Codes spent by a request whose answer was lost, so that the user asked for another. */
  codesLost: number;
  consistency: ConsistencyReport['counts'];
  problems: string[];
  seconds: number;
}

/** How long a journey step is retried while a dependency is down (a patient client). */
const patienceMs = 90_000;

/** A patient client, whose 429s are waited out on the service clock rather than in real time. */
const journeyOptions = (rig: ChaosRig): JourneyOptions => ({
  patienceMs,
  waitOut: (seconds) => rig.advanceClock(seconds),
});

/** Progress lines of a scenario (`npm run chaos` prints them; the slice does not). */
const progress = (line: string) => {
  if (process.env.CHAOS_PROGRESS !== undefined)
    console.log(`  ${new Date().toISOString().slice(11, 19)} ${line}`);
};

interface Fault {
  name: string;
  /**
   * Whether a signup may come out contested: when DynamoDB itself fails between storing a fresh
   * account and answering, the withdrawal of the account fails too, and the client's retry meets
   * it as someone else's (docs/reliability.md, "What remains").
   */
  mayContest: boolean;
  inject(rig: ChaosRig): Promise<void>;
  heal(rig: ChaosRig): Promise<void>;
  /** What was injected, once healed. */
  injected(rig: ChaosRig, before: InjectedBefore): Promise<number>;
}

interface InjectedBefore {
  proxy: number;
  standIns: number;
  downSince?: number;
}

async function standInFailures(rig: ChaosRig): Promise<number> {
  const { calls } = await rig.faults();
  return Object.values(calls).reduce((sum, tally) => sum + tally.failed, 0);
}

const faults: Record<string, Fault> = {
  'DynamoDB Local stopped, then restarted': {
    name: 'DynamoDB Local stopped, then restarted',
    mayContest: true,
    inject: (rig) => rig.stopDynamo(),
    heal: (rig) => rig.restartDynamo(),
    // The proxy resets each call that finds DynamoDB Local down.
    injected: async (rig, before) => rig.proxy.tally.unreachable - before.proxy,
  },
  'DynamoDB throttling and failing (25 % of calls)': {
    name: 'DynamoDB throttling and failing (25 % of calls)',
    mayContest: true,
    inject: async (rig) =>
      rig.proxy.inject({ rate: 0.25, faults: ['throughput', 'throttling', 'internal'] }),
    heal: async (rig) => rig.proxy.heal(),
    injected: async (rig, before) => rig.proxy.injectedTotal - before.proxy,
  },
  'SES and SNS failing': {
    name: 'SES and SNS failing',
    mayContest: false,
    inject: async (rig) => {
      await rig.setFaults({ ses: true, sns: true });
    },
    heal: async (rig) => {
      await rig.setFaults({ ses: false, sns: false });
    },
    injected: async (rig, before) => (await standInFailures(rig)) - before.standIns,
  },
  'SQS failing': {
    name: 'SQS failing',
    mayContest: false,
    inject: async (rig) => {
      await rig.setFaults({ sqs: true });
    },
    heal: async (rig) => {
      await rig.setFaults({ sqs: false });
    },
    injected: async (rig, before) => (await standInFailures(rig)) - before.standIns,
  },
};

export const faultNames = Object.keys(faults);

/** A problem per handler that threw instead of answering since `before`. */
/** The rig's tallies when a scenario starts: its figures count what came after. */
async function talliesOf(rig: ChaosRig) {
  return {
    requests: rig.recorder.requests,
    problems: rig.recorder.problemCount,
    crashes: rig.crashes(),
    counts: (await rig.consistency(newLedger(), false)).counts,
  };
}

const crashed = (rig: ChaosRig, before: number): string[] => {
  const count = rig.crashes() - before;
  return count > 0 ? [`${count} handler invocation(s) threw instead of answering`] : [];
};

type Counts = ConsistencyReport['counts'];

/** What a scenario added to the table: its counts less those it started with. */
const countsSince = (before: Counts, after: Counts): Counts =>
  Object.fromEntries(
    Object.entries(after).map(([name, value]) => [name, value - before[name as keyof Counts]]),
  ) as Counts;

const pause = (ms: number) => new Promise((resume) => setTimeout(resume, ms));

/** A webhook owner with two endpoints on the trusted receiver, made before any fault. */
async function webhookOwner(rig: ChaosRig, ledger: Ledger, tag: string) {
  const options = journeyOptions(rig);
  const owner = await signUp(rig.caller, ledger, options);
  const endpoints = [];
  for (const name of ['a', 'b']) {
    endpoints.push(
      await registerEndpoint(
        rig.caller,
        owner,
        `${rig.receiver.origin}/ok-${tag}-${name}`,
        options,
      ),
    );
  }
  return { owner, endpoints };
}

/**
 * Lets queued work finish: when no delivery or inbound event has finished for a while, moves the
 * service clock past the sweepers' grace (2 minutes), so that what a failed hand-off left in the
 * table is picked up, and gives the sweepers (every 5 s) time to run before moving it again.
 */
async function drain(rig: ChaosRig, ledger: Ledger): Promise<ConsistencyReport> {
  let waiting = Number.POSITIVE_INFINITY;
  let quietUntil = Date.now() + 2_000;
  return eventually(async () => {
    const { counts } = await rig.consistency(ledger, false);
    const now = counts.unfinished + counts.inboundUnfinished;
    if (now === 0) return rig.consistency(ledger, true);
    if (now < waiting) {
      waiting = now;
      quietUntil = Date.now() + 2_000;
    } else if (Date.now() > quietUntil) {
      await rig.advanceClock(130);
      quietUntil = Date.now() + 6_000;
    }
    await pause(500);
    return undefined;
  }, 180);
}

/**
 * Runs the journeys of `scale` while `faultName` is injected for `scale.faultMs`, heals it, waits
 * for the journeys and the queued work, and checks everything.
 */
export async function runFaultScenario(
  rig: ChaosRig,
  faultName: string,
  scale: ScenarioScale,
): Promise<ScenarioFigures> {
  const fault = faults[faultName];
  if (fault === undefined) throw new Error(`no fault ${faultName}`);
  const started = performance.now();
  const ledger = newLedger();
  const tag = randomUUID().slice(0, 6);
  const { owner, endpoints } = await webhookOwner(rig, ledger, tag);
  const start = await talliesOf(rig);
  const fiveHundredsBefore = rig.recorder.fiveHundreds;
  const before: InjectedBefore = {
    proxy:
      faultName === 'DynamoDB Local stopped, then restarted'
        ? rig.proxy.tally.unreachable
        : rig.proxy.injectedTotal,
    standIns: await standInFailures(rig),
  };

  const options = journeyOptions(rig);
  const accounts: Account[] = [];
  const spread = (index: number, count: number) =>
    (scale.faultMs * 1.5 * index) / Math.max(1, count);
  const traffic = [
    ...Array.from({ length: scale.journeys }, (_, index) =>
      journey(ledger, `account journey ${index}`, async () => {
        await pause(spread(index, scale.journeys));
        const account = await signUp(rig.caller, ledger, options);
        accounts.push(account);
        await useAccount(rig.caller, ledger, account, { ...options, reset: true });
      }),
    ),
    ...Array.from({ length: scale.publications }, (_, index) =>
      journey(ledger, `publication ${index}`, async () => {
        await pause(spread(index, scale.publications));
        await publishOrder(rig.caller, ledger, owner.userId, endpoints, options);
      }),
    ),
    ...Array.from({ length: scale.payments }, (_, index) =>
      journey(ledger, `payment ${index}`, async () => {
        await pause(spread(index, scale.payments));
        await receivePayment(rig.caller, ledger, owner.userId, options);
      }),
    ),
  ];

  rig.recorder.allowFiveHundreds(true);
  await pause(scale.faultMs / 4);
  progress(`${fault.name}: injected`);
  await fault.inject(rig);
  await pause(scale.faultMs);
  await fault.heal(rig);
  progress(`${fault.name}: healed`);
  await Promise.all(traffic);
  progress(`${fault.name}: journeys done`);
  rig.recorder.allowFiveHundreds(false);
  const injected = await fault.injected(rig, before);

  const problems = [...ledger.unfinished];
  const report = await drain(rig, ledger).catch(async () => rig.consistency(ledger, true));
  progress(`${fault.name}: queued work drained`);
  problems.push(...report.problems);
  // No session from before a password reset may still work.
  for (const { email, tokenBefore } of ledger.resets) {
    const answer = await rig.caller.call('read', 'GET', '/v1/profile', { token: tokenBefore });
    if (answer.status !== 401)
      problems.push(`a session of ${email} from before its reset answered ${answer.status}`);
  }
  // A signup retried after a failure is the same person: it must not come out contested.
  const contested = [...ledger.activated.values()].filter((activation) => activation.contested);
  if (!fault.mayContest) {
    for (const { email } of contested) {
      problems.push(`${email} came out contested after a retried signup`);
    }
  }
  // Every payment acknowledged is published on to the owner's endpoints once.
  const paymentsDelivered = rig.receiver.received.filter(
    (request) => request.path.includes(tag) && request.body.includes('"payment.successful"'),
  );
  const paymentEvents = new Set(paymentsDelivered.map((request) => request.headers['webhook-id']));
  if (report.problems.length === 0 && paymentEvents.size !== ledger.inbound.size) {
    problems.push(
      `${ledger.inbound.size} payments acknowledged, ${paymentEvents.size} published on`,
    );
  }
  problems.push(...rig.recorder.problems.slice(start.problems), ...crashed(rig, start.crashes));
  return {
    name: fault.name,
    requests: rig.recorder.requests - start.requests,
    faultsInjected: injected,
    fiveHundreds: rig.recorder.fiveHundreds - fiveHundredsBefore,
    badAnswers: rig.recorder.problemCount - start.problems,
    lostOrDoubled: report.problems.length + ledger.unfinished.length,
    contested: contested.length,
    codesLost: ledger.codesLost,
    consistency: countsSince(start.counts, report.counts),
    problems,
    seconds: Math.round((performance.now() - started) / 1000),
  };
}

/** The longest wait of the ladder: a clock moved past it (and the sweeper's grace) makes any retry due. */
const longestStep = Math.max(...chaosLadder.split(',').map(Number));

/**
 * EventBridge Scheduler failing when a retry is due beyond what SQS can delay: the delivery stays
 * due in the table and the sweeper sends it when its time comes, so the receiver — down for the
 * first attempt (the local inbox answering 503), back for the second — gets it, and the attempts
 * are recorded as they went.
 */
export async function runSchedulerFailure(rig: ChaosRig): Promise<ScenarioFigures> {
  const started = performance.now();
  const ledger = newLedger();
  const options = journeyOptions(rig);
  const start = await talliesOf(rig);
  const owner = await signUp(rig.caller, ledger, options);
  const inbox = `chaos-scheduler-${randomUUID().slice(0, 6)}`;
  const answerWith = async (status: number) => {
    const answer = await rig.caller.send('PUT', `/_local/inbox/${inbox}`, { body: { status } });
    if (answer.status !== 200) throw new Error(`inbox not set: ${answer.text}`);
  };
  await answerWith(503);
  const endpoint = await registerEndpoint(
    rig.caller,
    owner,
    `${rig.service.inboxOrigin}/inbox/${inbox}`,
    options,
  );
  const failedBefore = (await rig.faults()).calls.scheduler.failed;
  await rig.setFaults({ scheduler: true });
  await publishOrder(rig.caller, ledger, owner.userId, [endpoint], options);
  // Attempt 1 fails (503) and its retry, 1000 s out, cannot be scheduled.
  await eventually(async () =>
    (await rig.faults()).calls.scheduler.failed > failedBefore ? true : undefined,
  );
  await rig.setFaults({ scheduler: false });
  await answerWith(200);
  // The retry's time comes (and the sweeper's grace passes): only the sweeper can send it now.
  await rig.advanceClock(longestStep + 100);
  const report = await drain(rig, ledger);
  const problems = [...report.problems, ...ledger.unfinished];
  const arrivals = (await rig.caller.send('GET', `/_local/inbox/${inbox}`)).body.data as {
    answered_status: number;
  }[];
  const statuses = arrivals.map((arrival) => arrival.answered_status).reverse();
  if (statuses.join(',') !== '503,200') {
    problems.push(`the inbox answered ${statuses.join(', ')}, not 503 then 200`);
  }
  problems.push(...rig.recorder.problems.slice(start.problems), ...crashed(rig, start.crashes));
  return {
    name: 'Scheduler failing',
    requests: rig.recorder.requests - start.requests,
    faultsInjected: (await rig.faults()).calls.scheduler.failed - failedBefore,
    fiveHundreds: 0,
    badAnswers: rig.recorder.problemCount - start.problems,
    lostOrDoubled: report.problems.length + ledger.unfinished.length,
    contested: 0,
    codesLost: ledger.codesLost,
    consistency: countsSince(start.counts, report.counts),
    problems,
    seconds: Math.round((performance.now() - started) / 1000),
  };
}

/** What each hostile receiver's attempts must be recorded as. */
const hostile = [
  { path: 'slow', outcome: 'succeeded', error: undefined },
  { path: 'hang', outcome: 'failed', error: /no complete response within 10 s/ },
  { path: 'reset', outcome: 'failed', error: /ECONNRESET|socket hang up/ },
  { path: 'redirect', outcome: 'failed', error: /redirect not followed \(HTTP 302/ },
  { path: 'huge', outcome: 'succeeded', error: undefined },
] as const;

interface AttemptView {
  attempt: number;
  outcome: string;
  response_status: number | null;
  latency_ms: number;
  error: string | null;
  response_body: string | null;
}

/**
 * Webhook receivers that misbehave — slow (9 s), hanging past the 10 s timeout, resetting the
 * connection, redirecting, answering 50 MiB, presenting a certificate the service does not trust
 * — each get one delivery; the ladder is walked on the service clock until every delivery is
 * finished, and every attempt must be recorded once, with the outcome its receiver deserves.
 */
export async function runHostileReceivers(
  rig: ChaosRig,
  ladderLength: number,
): Promise<ScenarioFigures> {
  const started = performance.now();
  const ledger = newLedger();
  const options = journeyOptions(rig);
  const start = await talliesOf(rig);
  const owner = await signUp(rig.caller, ledger, options);
  const tag = randomUUID().slice(0, 6);
  const endpoints = new Map<string, string>();
  for (const { path } of hostile) {
    endpoints.set(
      path,
      await registerEndpoint(rig.caller, owner, `${rig.receiver.origin}/${path}-${tag}`, options),
    );
  }
  endpoints.set(
    'bad certificate',
    await registerEndpoint(rig.caller, owner, `${rig.untrusted.origin}/ok-${tag}`, options),
  );
  await publishOrder(rig.caller, ledger, owner.userId, [...endpoints.values()], options);

  const problems: string[] = [];
  const attemptsOf = async (
    endpointId: string,
  ): Promise<{ status: string; due: boolean; attempts: AttemptView[] }> => {
    let list = await rig.caller.call('webhooks', 'GET', `/v1/webhooks/${endpointId}/deliveries`, {
      token: owner.accessToken,
    });
    if (list.status === 401) {
      // The clock moved past the access token's lifetime: sign in again.
      const login = await rig.caller.call('login', 'POST', '/v1/auth/login', {
        body: { email: owner.email, password: owner.password },
      });
      owner.accessToken = login.body.data.access_token;
      list = await rig.caller.call('webhooks', 'GET', `/v1/webhooks/${endpointId}/deliveries`, {
        token: owner.accessToken,
      });
    }
    const delivery = list.body?.data?.[0];
    if (delivery === undefined) return { status: 'none', due: false, attempts: [] };
    const one = await rig.caller.call(
      'webhooks',
      'GET',
      `/v1/webhooks/${endpointId}/deliveries/${delivery.id}`,
      { token: owner.accessToken },
    );
    const { status, next_attempt_at, attempts } = one.body.data;
    // Pending with a next attempt time: waiting for the ladder (in flight has none).
    return { status, due: status === 'pending' && next_attempt_at !== null, attempts };
  };
  // Walk the ladder: each round waits for the attempts due, then moves the clock past the next
  // step (and the sweeper's grace) — never a sleep through a retry delay.
  await eventually(
    async () => {
      const states = await Promise.all([...endpoints.values()].map(attemptsOf));
      if (states.every((state) => state.status === 'delivered' || state.status === 'failed'))
        return true;
      const finished = (state: { status: string }) =>
        state.status === 'delivered' || state.status === 'failed';
      if (states.every((state) => finished(state) || (state.due && state.attempts.length > 0))) {
        await rig.advanceClock(longestStep + 100);
      }
      await pause(1_000);
      return undefined;
    },
    60 + ladderLength * 25,
  );

  const faultsInjected = [];
  for (const [name, endpointId] of endpoints) {
    const { status, attempts } = await attemptsOf(endpointId);
    const rule = hostile.find((candidate) => candidate.path === name);
    const wantedOutcome = rule?.outcome ?? 'failed';
    const wantedStatus = wantedOutcome === 'succeeded' ? 'delivered' : 'failed';
    const wantedAttempts = wantedOutcome === 'succeeded' ? 1 : ladderLength;
    faultsInjected.push(attempts.length);
    if (status !== wantedStatus)
      problems.push(`${name}: delivery is ${status}, not ${wantedStatus}`);
    if (attempts.length !== wantedAttempts) {
      problems.push(`${name}: ${attempts.length} attempts recorded, not ${wantedAttempts}`);
    }
    attempts.forEach((attempt, index) => {
      if (attempt.attempt !== index + 1)
        problems.push(`${name}: attempt ${index + 1} numbered ${attempt.attempt}`);
      if (attempt.outcome !== wantedOutcome) {
        problems.push(`${name}: attempt ${attempt.attempt} ${attempt.outcome}: ${attempt.error}`);
      }
      const error = rule?.error ?? /certificate|self.signed|unable to verify/i;
      if (wantedOutcome === 'failed' && !error.test(attempt.error ?? '')) {
        problems.push(`${name}: attempt ${attempt.attempt} recorded as "${attempt.error}"`);
      }
    });
    if (name === 'slow' && (attempts[0]?.latency_ms ?? 0) < slowAnswerMs) {
      problems.push(`slow: latency ${attempts[0]?.latency_ms} ms recorded for a 9 s answer`);
    }
    if (name === 'huge' && (attempts[0]?.response_body?.length ?? 0) > 1024) {
      problems.push(
        `huge: ${attempts[0]?.response_body?.length} bytes of a ${hugeBodyBytes}-byte answer kept`,
      );
    }
  }
  // Every attempt the service counted reached the receiver (none for the untrusted one).
  for (const { path } of hostile) {
    const got = rig.receiver.received.filter(
      (request) => request.path === `/${path}-${tag}`,
    ).length;
    const rule = hostile.find((candidate) => candidate.path === path)!;
    const counted = rule.outcome === 'succeeded' ? 1 : ladderLength;
    if (got !== counted)
      problems.push(`${path}: the receiver got ${got} requests for ${counted} attempts`);
  }
  if (rig.untrusted.received.length > 0) problems.push('the untrusted receiver got a delivery');
  const report = await rig.consistency(ledger, true);
  problems.push(
    ...report.problems,
    ...rig.recorder.problems.slice(start.problems),
    ...crashed(rig, start.crashes),
  );
  return {
    name: 'Hostile webhook receivers',
    requests: rig.recorder.requests - start.requests,
    faultsInjected: faultsInjected.reduce((sum, n) => sum + n, 0),
    fiveHundreds: 0,
    badAnswers: rig.recorder.problemCount - start.problems,
    lostOrDoubled: report.problems.length,
    contested: 0,
    codesLost: 0,
    consistency: countsSince(start.counts, report.counts),
    problems,
    seconds: Math.round((performance.now() - started) / 1000),
  };
}
