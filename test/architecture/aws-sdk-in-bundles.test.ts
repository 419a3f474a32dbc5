import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { build, type Metafile } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
import { routes } from '../../functions/routes.js';
import { bundleAliases, esbuildOptions } from '../../infra/bundling.js';
import { mergedNeeds, routesByEntry } from '../../shared/http/route-needs.js';
import type { Needs } from '../../shared/http/route-table.js';

/**
 * Every AWS call goes through the AWS SDK for JavaScript v3 client of that service
 * (docs/architecture.md, "Layers"), and no module of ours signs a request. Each function's bundle is built as the stack builds it;
 * esbuild's metafile says which packages put bytes into it. A function carries a service's client
 * exactly when its routes are granted that service (`needs`, which the stack turns into its
 * role): DynamoDB through client-dynamodb and lib-dynamodb, the queues through client-sqs, email
 * through client-ses, SMS through client-sns, retries through client-scheduler. The same bundles
 * show the WebAuthn library (about 250 KiB with its ASN.1 and X.509 packages) only where a passkey
 * ceremony needs it.
 */

type Service = 'dynamodb' | 'sqs' | 'ses' | 'sns' | 'scheduler';

/** The card's packages each service is reached through. */
const clientsOf: Record<Service, string[]> = {
  dynamodb: ['@aws-sdk/client-dynamodb', '@aws-sdk/lib-dynamodb'],
  sqs: ['@aws-sdk/client-sqs'],
  ses: ['@aws-sdk/client-ses'],
  sns: ['@aws-sdk/client-sns'],
  scheduler: ['@aws-sdk/client-scheduler'],
};

/** The services a function's role lets it call. */
const grantedBy = (needs: Needs): Record<Service, boolean> => ({
  dynamodb: (needs.items ?? []).length > 0,
  sqs: Boolean(needs.deliveryQueue || needs.inboundQueue || needs.accountCodeQueue),
  ses: Boolean(needs.email),
  sns: Boolean(needs.sms),
  scheduler: Boolean(needs.scheduler),
});

/** What signs an AWS request: SigV4's algorithm name and its credential scope's terminator. */
const signing = /AWS4-HMAC-SHA256|aws4_request/;

/** The packages that put bytes into a bundle (`@aws-sdk/client-sqs`), and our own files in it. */
function contentsOf(metafile: Metafile): { packages: Set<string>; ownFiles: string[] } {
  const packages = new Set<string>();
  const ownFiles: string[] = [];
  for (const output of Object.values(metafile.outputs)) {
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
      if (bytesInOutput === 0) continue;
      const owner = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1];
      if (owner !== undefined) packages.add(owner);
      else if (/^(functions|shared)\//.test(input)) ownFiles.push(input);
    }
  }
  return { packages, ownFiles };
}

const sourcesUnder = (directory: string): string[] =>
  readdirSync(directory).flatMap((name) => {
    const path = join(directory, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' ? [] : sourcesUnder(path);
    return /\.(ts|tsx|mjs|js)$/.test(name) ? [path] : [];
  });

const bundles = new Map<
  string,
  { granted: Record<Service, boolean>; checksPasskeys: boolean; metafile: Metafile }
>();

beforeAll(async () => {
  for (const [entry, entryRoutes] of routesByEntry(routes)) {
    const { metafile } = await build({
      ...esbuildOptions,
      alias: bundleAliases('x86_64'),
      entryPoints: [entry],
      outfile: 'out/index.mjs',
      write: false,
      sourcemap: false,
      metafile: true,
      logLevel: 'silent',
    });
    const needs = mergedNeeds(entryRoutes);
    bundles.set(entry, {
      granted: grantedBy(needs),
      checksPasskeys: needs.passkeys === true,
      metafile,
    });
  }
}, 180_000);

describe('the AWS calls of every function', () => {
  it('go through the AWS SDK client of each service the function is granted, and no other', () => {
    expect(bundles.size).toBeGreaterThan(40);
    const wrong: string[] = [];
    for (const [entry, { granted, metafile }] of bundles) {
      const { packages } = contentsOf(metafile);
      for (const service of Object.keys(clientsOf) as Service[]) {
        for (const client of clientsOf[service]) {
          if (packages.has(client) !== granted[service]) {
            wrong.push(`${entry} ${granted[service] ? 'lacks' : 'carries'} ${client}`);
          }
        }
      }
    }
    expect(wrong).toEqual([]);
    // Every service is called by some function: the check above is not vacuous.
    for (const service of Object.keys(clientsOf) as Service[]) {
      expect(
        [...bundles.values()].some(({ granted }) => granted[service]),
        service,
      ).toBe(true);
    }
  });

  it('are signed by the SDK: no module of ours in a bundle, or anywhere under functions/ and shared/, signs a request', () => {
    const ownSigners = [...bundles.values()].flatMap(({ metafile }) =>
      contentsOf(metafile).ownFiles.filter((file) => signing.test(readFileSync(file, 'utf8'))),
    );
    expect(ownSigners).toEqual([]);
    const anywhere = [...sourcesUnder('functions'), ...sourcesUnder('shared')].filter((file) =>
      signing.test(readFileSync(file, 'utf8')),
    );
    expect(anywhere).toEqual([]);
    // …while the bundles that call AWS do carry a signer: the SDK's.
    const sdkSigner = '@smithy/signature-v4';
    for (const [entry, { metafile }] of bundles) {
      expect(contentsOf(metafile).packages.has(sdkSigner), entry).toBe(true);
    }
  });
});

describe('the WebAuthn library', () => {
  it('is in the bundles of the passkey ceremonies only (listing or removing one does not load it)', () => {
    const carrying = [...bundles]
      .filter(([, { metafile }]) => contentsOf(metafile).packages.has('@simplewebauthn/server'))
      .map(([entry]) => entry)
      .sort();
    const ceremonies = [...bundles]
      .filter(([, { checksPasskeys }]) => checksPasskeys)
      .map(([entry]) => entry)
      .sort();

    expect(ceremonies).toHaveLength(4);
    expect(carrying).toEqual(ceremonies);
  });
});
