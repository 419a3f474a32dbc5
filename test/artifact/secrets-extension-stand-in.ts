import { randomInt } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DeployedFunction } from './deployed-functions.js';
import { isAllowed } from './evaluate-policy.js';
import type { LocalDeployment } from './local-deployment.js';

/** The GenerateSecretString of an AWS::SecretsManager::Secret. */
export interface SecretGeneration {
  PasswordLength?: number;
  ExcludeCharacters?: string;
  ExcludeLowercase?: boolean;
  ExcludeUppercase?: boolean;
  ExcludeNumbers?: boolean;
  ExcludePunctuation?: boolean;
  IncludeSpace?: boolean;
  RequireEachIncludedType?: boolean;
  SecretStringTemplate?: string;
  GenerateStringKey?: string;
}

const characterTypes = {
  lowercase: 'abcdefghijklmnopqrstuvwxyz',
  uppercase: 'ABCDEFGHIJKLMNOPQRSTUVWXYZ',
  numbers: '0123456789',
  punctuation: '!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~',
};

/**
 * A value Secrets Manager could generate for these settings (GetRandomPassword's rules: 32
 * characters unless told, at least one of each included type unless told otherwise). Where it
 * may choose punctuation, the value holds a comma, as it may on AWS: the service reads
 * rotatable secrets as comma-separated lists, and must cope with (or forbid) what AWS generates.
 */
export function generateSecretValue(settings: SecretGeneration): string {
  const excluded = new Set(settings.ExcludeCharacters ?? '');
  const types = [
    settings.ExcludeLowercase ? '' : characterTypes.lowercase,
    settings.ExcludeUppercase ? '' : characterTypes.uppercase,
    settings.ExcludeNumbers ? '' : characterTypes.numbers,
    settings.ExcludePunctuation ? '' : characterTypes.punctuation,
    settings.IncludeSpace ? ' ' : '',
  ]
    .map((type) => [...type].filter((character) => !excluded.has(character)).join(''))
    .filter((type) => type !== '');
  const all = types.join('');
  const pick = (from: string) => from[randomInt(from.length)]!;
  const length = settings.PasswordLength ?? 32;
  const required =
    settings.RequireEachIncludedType === false
      ? []
      : types.map((type) => (type.includes(',') ? ',' : pick(type)));
  const value = [...required];
  while (value.length < length) value.push(pick(all));
  const generated = value.join('');
  if (settings.GenerateStringKey === undefined) return generated;
  const template = JSON.parse(settings.SecretStringTemplate ?? '{}') as Record<string, unknown>;
  return JSON.stringify({ ...template, [settings.GenerateStringKey]: generated });
}

/**
 * The AWS Parameters and Secrets Lambda Extension's HTTP interface
 * (`GET /secretsmanager/get?secretId=…` with `X-Aws-Parameters-Secrets-Token`), answering for
 * the stack's secrets with values generated as the template asks. It serves a function only if
 * the function has the extension's layer, presents its own session token, and its role may
 * `secretsmanager:GetSecretValue` that secret — the checks the real extension and Secrets
 * Manager make between them.
 */
export class SecretsExtensionStandIn {
  readonly values = new Map<string, string>();
  /** Every refused read: a test expects none. */
  readonly refusals: string[] = [];
  private server: Server | undefined;

  constructor(
    private readonly deployment: LocalDeployment,
    private readonly functions: readonly DeployedFunction[],
  ) {
    for (const id of deployment.resourcesOf('AWS::SecretsManager::Secret')) {
      const generation = deployment.properties(id).GenerateSecretString as
        | SecretGeneration
        | undefined;
      const given = deployment.properties(id).SecretString;
      this.values.set(
        deployment.ref(id),
        generation === undefined ? String(given ?? '') : generateSecretValue(generation),
      );
    }
  }

  /** The value of the secret with this logical id. */
  valueOf(logicalId: string): string {
    return this.values.get(this.deployment.ref(logicalId))!;
  }

  async start(): Promise<number> {
    this.server = createServer((request, response) => {
      const answer = this.answer(
        new URL(request.url ?? '/', 'http://localhost'),
        request.headers['x-aws-parameters-secrets-token'],
      );
      if (answer.status !== 200) this.refusals.push(answer.body);
      response.writeHead(answer.status, { 'content-type': 'application/json' });
      response.end(answer.body);
    });
    await new Promise<void>((listening) => this.server!.listen(0, '127.0.0.1', listening));
    return (this.server.address() as AddressInfo).port;
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((closed) =>
      this.server ? this.server.close(() => closed()) : closed(),
    );
  }

  private answer(url: URL, token: string | string[] | undefined): { status: number; body: string } {
    const caller = this.functions.find((fn) => fn.credentials.sessionToken === token);
    if (caller === undefined) return { status: 401, body: 'unknown or missing session token' };
    if (
      !caller.layers.some((layer) => layer.includes('AWS-Parameters-and-Secrets-Lambda-Extension'))
    ) {
      return { status: 502, body: `${caller.logicalId} has no Parameters and Secrets extension` };
    }
    if (url.pathname !== '/secretsmanager/get') return { status: 404, body: url.pathname };
    const secretId = url.searchParams.get('secretId') ?? '';
    const value = this.values.get(secretId);
    if (value === undefined) return { status: 400, body: `no secret ${secretId} in this stack` };
    const allowed = isAllowed(caller.statements, {
      action: 'secretsmanager:GetSecretValue',
      resource: secretId,
    });
    if (!allowed) {
      return { status: 400, body: `${caller.logicalId} may not read ${secretId}` };
    }
    return {
      status: 200,
      body: JSON.stringify({
        ARN: secretId,
        Name: secretId.split(':').at(-1),
        VersionId: 'local',
        VersionStages: ['AWSCURRENT'],
        SecretString: value,
        CreatedDate: new Date().toISOString(),
      }),
    };
  }
}
