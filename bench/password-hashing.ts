import {
  measured,
  median,
  percentile,
  type Row,
  reasonOf,
  round,
  type Section,
  unavailable,
} from './report.js';

/**
 * The accounts area's hasher, loaded by path at run time: the bench reports "not available"
 * instead of failing to start if the module moves or is still being written.
 */
const hasherModule = '../shared/domain/accounts/password-hashing.js';

interface Hasher {
  hashPassword(password: string): Promise<string>;
  verifyPassword(password: string, phc: string): Promise<boolean>;
  currentParameters?: unknown;
}

function isHasher(value: unknown): value is Hasher {
  const candidate = value as Partial<Hasher> | null;
  return (
    typeof candidate?.hashPassword === 'function' && typeof candidate.verifyPassword === 'function'
  );
}

async function timed(iterations: number, work: () => Promise<unknown>) {
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < iterations; i += 1) {
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    await work();
    wall.push(performance.now() - started);
    const used = process.cpuUsage(cpuBefore);
    cpu.push((used.user + used.system) / 1000);
  }
  return { wall, cpu };
}

const columns = [
  { key: 'p50_ms', label: 'p50 ms' },
  { key: 'p99_ms', label: 'p99 ms' },
  { key: 'cpu_ms', label: 'CPU ms' },
  { key: 'per_vcpu_per_second', label: '/s per vCPU' },
  { key: 'n', label: 'n' },
];

/** Milliseconds per hash and per verification at the parameters the service uses today. */
export async function passwordHashingSection(iterations: number): Promise<Section> {
  const rows: Row[] = [];
  const notes: string[] = [];
  try {
    const loaded: unknown = await import(hasherModule);
    if (!isHasher(loaded))
      throw new Error(`${hasherModule} exports no hashPassword/verifyPassword`);
    notes.push(`Parameters: ${JSON.stringify(loaded.currentParameters ?? 'module default')}.`);
    // One untimed hash starts the thread pool the native binding hashes on, as the first login of
    // a cold start does; the figures are for warm invocations.
    const phc = await loaded.hashPassword('bench password 0');
    const rowOf = (name: string, result: { wall: number[]; cpu: number[] }) => {
      const cpuMs = median(result.cpu);
      return measured(name, {
        p50_ms: round(percentile(result.wall, 50)),
        p99_ms: round(percentile(result.wall, 99)),
        cpu_ms: round(cpuMs),
        per_vcpu_per_second: round(1000 / cpuMs),
        n: result.wall.length,
      });
    };
    rows.push(
      rowOf('hashPassword', await timed(iterations, () => loaded.hashPassword('bench password 1'))),
    );
    rows.push(
      rowOf(
        'verifyPassword',
        await timed(iterations, () => loaded.verifyPassword('bench password 0', phc)),
      ),
    );
  } catch (error) {
    rows.push(unavailable('password hashing', reasonOf(error)));
  }
  return {
    id: 'hashing',
    title: 'Password hashing (warm, in this process)',
    columns,
    rows,
    notes: [
      ...notes,
      'Every login pays one verifyPassword. Contract anchor on a 2-core machine: Argon2id in WebAssembly ~58 ms, native ~11 ms, scrypt 2^17 ~384 ms. Keycloak sizing: 15 password logins/s per vCPU.',
    ],
  };
}
