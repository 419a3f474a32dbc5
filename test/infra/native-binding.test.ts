import {
  copyFileSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { argon2Bindings, extractedBinding } from '../../infra/native-binding.js';
import { ServiceFunction } from '../../infra/service-function.js';

/** The ELF `e_machine` of a binary (little-endian), or undefined when it is no ELF file. */
function elfMachine(binary: Buffer): number | undefined {
  return binary.subarray(0, 4).toString('latin1') === '\x7fELF'
    ? binary.readUInt16LE(18)
    : undefined;
}
const aarch64 = 183;
const x86_64 = 62;

/**
 * Two ARM64 functions of the stack, bundled for real (the other CDK tests skip bundling): one
 * that hashes passwords, one that never does.
 */
let outdir: string;
let assetOf: (id: string) => string;

beforeAll(() => {
  outdir = mkdtempSync(join(tmpdir(), 'native-binding-'));
  // As the CLI asks for it: each function names its asset directory in its metadata.
  const app = new App({ outdir, context: { 'aws:cdk:enable-asset-metadata': true } });
  const stack = new Stack(app, 'NativeBinding');
  const functions = {
    Login: new ServiceFunction(stack, 'Login', {
      entry: 'functions/auth/login.ts',
      serviceName: 'NativeBinding',
      description: 'login',
    }),
    Refresh: new ServiceFunction(stack, 'Refresh', {
      entry: 'functions/auth/refresh-token.ts',
      serviceName: 'NativeBinding',
      description: 'refresh',
    }),
  };
  const assembly = app.synth();
  const template = assembly.getStackByName(stack.stackName).template as {
    Resources: Record<string, { Metadata?: Record<string, string> }>;
  };
  assetOf = (id) => {
    const logicalId = stack.getLogicalId(
      functions[id as keyof typeof functions].node.defaultChild as lambda.CfnFunction,
    );
    return join(outdir, template.Resources[logicalId]!.Metadata!['aws:asset:path']!);
  };
}, 120_000);

afterAll(() => rmSync(outdir, { recursive: true, force: true }));

describe('the native Argon2 binding on Lambda', () => {
  it('puts the ARM64 binary beside the bundle of a function that hashes, and has it required from there', () => {
    const asset = assetOf('Login');
    const binary = readFileSync(join(asset, argon2Bindings.arm64.fileName));
    expect(elfMachine(binary)).toBe(aarch64);
    const bundle = readFileSync(join(asset, 'index.mjs'), 'utf8');
    expect(bundle).toContain(`"./${argon2Bindings.arm64.fileName}"`);
    // Nothing to fall back to: no other platform's binary, no WebAssembly, no package loader.
    expect(bundle).not.toContain(argon2Bindings.x86_64.fileName);
    expect(bundle).not.toMatch(/wasm|Cannot find native binding/i);
  });

  it('leaves the binary out of a function that never hashes', () => {
    const asset = assetOf('Refresh');
    expect(existsSync(join(asset, argon2Bindings.arm64.fileName))).toBe(false);
    expect(readFileSync(join(asset, 'index.mjs'), 'utf8')).not.toContain('argon2');
  });

  it('takes the x86_64 binary out of its vendored tarball for that architecture', () => {
    expect(elfMachine(readFileSync(extractedBinding('x86_64')))).toBe(x86_64);
  });

  it('refuses a vendored tarball that is not the one package-lock.json pins', () => {
    const vendor = mkdtempSync(join(tmpdir(), 'vendored-'));
    try {
      const name = 'node-rs-argon2-linux-arm64-gnu-2.2.1.tgz';
      const genuine = join(import.meta.dirname, '..', '..', 'infra', 'native', name);
      copyFileSync(genuine, join(vendor, name));
      expect(elfMachine(readFileSync(extractedBinding('arm64', vendor)))).toBe(aarch64);
      const tampered = readFileSync(genuine);
      tampered[tampered.length - 1] = (tampered.at(-1) ?? 0) ^ 1;
      writeFileSync(join(vendor, name), tampered);
      expect(() => extractedBinding('arm64', vendor)).toThrow(
        /not the package package-lock.json pins/,
      );
      rmSync(join(vendor, name));
      expect(() => extractedBinding('arm64', vendor)).toThrow(
        /is missing: vendor it with `npm pack/,
      );
    } finally {
      rmSync(vendor, { recursive: true, force: true });
    }
  });
});
