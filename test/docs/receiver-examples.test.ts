import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { generateSigningSecret, signatureHeaders } from '../../shared/domain/webhooks/signing.js';

/**
 * The receiver code of docs/webhooks.md ("For receiver authors"), taken from the page itself and
 * run against requests signed by the service's own signing code: what a receiver author copies
 * is what is tested.
 */

const page = readFileSync(resolve(import.meta.dirname, '../../docs/webhooks.md'), 'utf8');

function example(name: string): string {
  const found = new RegExp(`<!-- example: ${name} -->\\n\`\`\`\\w+\\n([\\s\\S]*?)\\n\`\`\``).exec(
    page,
  );
  if (found?.[1] === undefined) throw new Error(`docs/webhooks.md has no example ${name}`);
  return found[1];
}

const directory = mkdtempSync(join(tmpdir(), 'receiver-examples-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

const oldSecret = generateSigningSecret();
const newSecret = generateSigningSecret();
const strangerSecret = generateSigningSecret();
const body = JSON.stringify({
  id: 'evt_7k2m9q4x1z3c5v8b6n0a',
  type: 'order.created',
  created_at: '2026-01-15T09:30:00.000Z',
  data: { order_id: 'ord_8f2kq7x1', status: 'placed', total: 42.5, currency: 'EUR', note: 'Zoë ✓' },
});
const now = Math.floor(Date.now() / 1000);
/** As the service signs during a rotation's overlap: newest secret first. */
const signed = signatureHeaders('evt_7k2m9q4x1z3c5v8b6n0a', now, body, [newSecret, oldSecret]);
const stale = signatureHeaders('evt_7k2m9q4x1z3c5v8b6n0a', now - 600, body, [newSecret]);
const tampered = body.replace('42.5', '4.25');
const reserialised = JSON.stringify(JSON.parse(body), null, 1);

/** Each case: what a receiver holding `secrets` answers for `body` with `headers`. */
const cases = [
  {
    name: 'service: new secret',
    kind: 'service',
    body,
    headers: signed,
    secrets: [newSecret],
    expected: true,
  },
  {
    name: 'service: old secret',
    kind: 'service',
    body,
    headers: signed,
    secrets: [oldSecret],
    expected: false,
  },
  {
    name: 'service: tampered',
    kind: 'service',
    body: tampered,
    headers: signed,
    secrets: [newSecret],
    expected: false,
  },
  {
    name: 'service: re-serialised',
    kind: 'service',
    body: reserialised,
    headers: signed,
    secrets: [newSecret],
    expected: false,
  },
  {
    name: 'standard: old secret',
    kind: 'standard',
    body,
    headers: signed,
    secrets: [oldSecret],
    expected: true,
  },
  {
    name: 'standard: new secret',
    kind: 'standard',
    body,
    headers: signed,
    secrets: [newSecret],
    expected: true,
  },
  {
    name: 'standard: either',
    kind: 'standard',
    body,
    headers: signed,
    secrets: [strangerSecret, oldSecret],
    expected: true,
  },
  {
    name: 'standard: stranger',
    kind: 'standard',
    body,
    headers: signed,
    secrets: [strangerSecret],
    expected: false,
  },
  {
    name: 'standard: tampered',
    kind: 'standard',
    body: tampered,
    headers: signed,
    secrets: [newSecret],
    expected: false,
  },
  {
    name: 'standard: 10 minutes old',
    kind: 'standard',
    body,
    headers: stale,
    secrets: [newSecret],
    expected: false,
  },
];

describe('the receiver examples of docs/webhooks.md', () => {
  it('Node: verifies what the service signs and refuses the rest', async () => {
    const file = join(directory, 'verify.mjs');
    writeFileSync(file, example('verify-node'));
    const { verifyServiceSignature, verifyStandardWebhook } = (await import(
      pathToFileURL(file).href
    )) as {
      verifyServiceSignature: (body: string, header: string, secret: string) => boolean;
      verifyStandardWebhook: (
        body: string,
        headers: Record<string, string>,
        secrets: string[],
      ) => boolean;
    };
    const answers = cases.map((entry) =>
      entry.kind === 'service'
        ? verifyServiceSignature(
            entry.body,
            entry.headers['x-service-signature'] ?? '',
            entry.secrets[0] ?? '',
          )
        : verifyStandardWebhook(entry.body, entry.headers, entry.secrets),
    );
    expect(Object.fromEntries(cases.map((entry, index) => [entry.name, answers[index]]))).toEqual(
      Object.fromEntries(cases.map((entry) => [entry.name, entry.expected])),
    );
  });

  const python = spawnSync('python3', ['--version']).status === 0;

  it.skipIf(!python)('Python: verifies what the service signs and refuses the rest', () => {
    const file = join(directory, 'verify.py');
    writeFileSync(
      file,
      `${example('verify-python')}

import json, sys
answers = []
for case in json.load(sys.stdin):
    raw = case["body"].encode("utf-8")
    if case["kind"] == "service":
        answers.append(verify_service_signature(raw, case["headers"]["x-service-signature"], case["secrets"][0]))
    else:
        answers.append(verify_standard_webhook(raw, case["headers"], case["secrets"]))
print(json.dumps(answers))
`,
    );
    const run = spawnSync('python3', [file], { input: JSON.stringify(cases), encoding: 'utf8' });
    expect(run.stderr).toBe('');
    const answers = JSON.parse(run.stdout) as boolean[];
    expect(Object.fromEntries(cases.map((entry, index) => [entry.name, answers[index]]))).toEqual(
      Object.fromEntries(cases.map((entry) => [entry.name, entry.expected])),
    );
  });
});
