import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';

/**
 * The native Argon2id binding (`@node-rs/argon2`) of the Lambda bundles, offline.
 *
 * npm installs only the host's binary, and refuses another platform's package as a dependency,
 * so the binaries the functions run are vendored as their npm tarballs (`infra/native/`). At synth
 * time a tarball is checked against the integrity that package-lock.json records for that exact
 * package and version, and only its `.node` file is taken out: no Docker, no network, nothing
 * that the lock file did not pin.
 *
 * In the bundle, `@node-rs/argon2` is aliased to a two-line shim that requires the architecture's
 * file beside `index.mjs` (`*.node` stays external): the package's own loader, with its libc
 * probing and its WebAssembly fallback, is never bundled. A function whose bundle requires the
 * file gets it (`nativeBindingHook`); if it is missing or cannot load, the import of the bundle
 * throws, and so the cold start fails — it never hashes any slower instead.
 */

/** A Lambda processor, as the `architecture` context names it. */
export type LambdaArchitecture = 'arm64' | 'x86_64';

export interface NativeBinding {
  /** The npm package that ships the binary for this architecture (glibc: Lambda's Amazon Linux). */
  packageName: string;
  /** The binary's file name, inside the package and beside the bundle. */
  fileName: string;
  /** The shim `@node-rs/argon2` is aliased to in the bundle. */
  shim: string;
}

const nativeDirectory = path.join(path.dirname(fileURLToPath(import.meta.url)), 'native');
const projectRoot = path.resolve(nativeDirectory, '..', '..');
const shimDirectory = path.join(projectRoot, 'infra', 'bundle-shims');

export const argon2Bindings: Record<LambdaArchitecture, NativeBinding> = {
  arm64: {
    packageName: '@node-rs/argon2-linux-arm64-gnu',
    fileName: 'argon2.linux-arm64-gnu.node',
    shim: path.join(shimDirectory, 'argon2-linux-arm64-gnu.cjs'),
  },
  x86_64: {
    packageName: '@node-rs/argon2-linux-x64-gnu',
    fileName: 'argon2.linux-x64-gnu.node',
    shim: path.join(shimDirectory, 'argon2-linux-x64-gnu.cjs'),
  },
};

interface LockedPackage {
  version: string;
  integrity: string;
}

function lockedPackage(name: string): LockedPackage {
  const lock = JSON.parse(readFileSync(path.join(projectRoot, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, Partial<LockedPackage>>;
  };
  const entry = lock.packages[`node_modules/${name}`];
  if (entry?.version === undefined || entry.integrity === undefined) {
    throw new Error(`package-lock.json has no ${name}: run npm install @node-rs/argon2`);
  }
  return { version: entry.version, integrity: entry.integrity };
}

/** The file `name` of an uncompressed tar archive (ustar, as npm packs). */
function fileOfTar(archive: Buffer, name: string): Buffer | undefined {
  let offset = 0;
  while (offset + 512 <= archive.length) {
    const header = archive.subarray(offset, offset + 512);
    if (header.every((byte) => byte === 0)) return undefined;
    const field = (start: number, length: number) =>
      header
        .subarray(start, start + length)
        .toString('utf8')
        .replace(/\0.*$/s, '');
    const size = Number.parseInt(field(124, 12).trim(), 8);
    const prefix = field(345, 155);
    const entryName = prefix === '' ? field(0, 100) : `${prefix}/${field(0, 100)}`;
    const type = field(156, 1);
    const start = offset + 512;
    if ((type === '0' || type === '') && entryName === name) {
      return archive.subarray(start, start + size);
    }
    offset = start + Math.ceil(size / 512) * 512;
  }
  return undefined;
}

/**
 * The architecture's binary, taken out of its vendored tarball after checking the tarball against
 * package-lock.json (same version as `@node-rs/argon2`, same sha512): the path of the `.node` file,
 * written under the temporary directory in a folder named by that integrity.
 */
export function extractedBinding(
  architecture: LambdaArchitecture,
  vendorDirectory = nativeDirectory,
): string {
  const binding = argon2Bindings[architecture];
  const { version } = lockedPackage('@node-rs/argon2');
  const locked = lockedPackage(binding.packageName);
  if (locked.version !== version) {
    throw new Error(
      `${binding.packageName} is locked at ${locked.version} but @node-rs/argon2 at ${version}`,
    );
  }
  const tarballName = `${binding.packageName.replace('@', '').replace('/', '-')}-${version}.tgz`;
  let tarball: Buffer;
  try {
    tarball = readFileSync(path.join(vendorDirectory, tarballName));
  } catch {
    throw new Error(
      `infra/native/${tarballName} is missing: vendor it with \`npm pack ${binding.packageName}@${version}\` in infra/native`,
    );
  }
  const integrity = `sha512-${createHash('sha512').update(tarball).digest('base64')}`;
  if (integrity !== locked.integrity) {
    throw new Error(
      `infra/native/${tarballName} is not the package package-lock.json pins (${integrity} ≠ ${locked.integrity})`,
    );
  }
  const binary = fileOfTar(gunzipSync(tarball), `package/${binding.fileName}`);
  if (binary === undefined) throw new Error(`${tarballName} holds no ${binding.fileName}`);
  const directory = path.join(
    tmpdir(),
    'native-bindings',
    createHash('sha256').update(locked.integrity).digest('hex').slice(0, 16),
  );
  mkdirSync(directory, { recursive: true });
  const target = path.join(directory, binding.fileName);
  // Written aside and renamed: a concurrent synth never reads a half-written file.
  const partial = `${target}.${process.pid}.partial`;
  writeFileSync(partial, binary);
  renameSync(partial, target);
  return target;
}

/**
 * The shell command (NodejsFunction's `afterBundling` hook) that puts the binary beside a bundle
 * that requires it, and only there: functions that never hash carry no binary.
 */
export function nativeBindingHook(
  architecture: LambdaArchitecture,
  outputDir: string,
  binary: string,
): string {
  const { fileName } = argon2Bindings[architecture];
  return `if grep -q '${fileName}' "${outputDir}/index.mjs"; then cp "${binary}" "${outputDir}/${fileName}"; fi`;
}

/** The same in-process, for bundles built outside CDK (the bench's cold-start bundles). */
export function placeNativeBinding(architecture: LambdaArchitecture, outputDir: string): void {
  const { fileName } = argon2Bindings[architecture];
  if (readFileSync(path.join(outputDir, 'index.mjs'), 'utf8').includes(fileName)) {
    copyFileSync(extractedBinding(architecture), path.join(outputDir, fileName));
  }
}

/** The architecture of this machine's binaries, when it is one Lambda has. */
export const hostArchitecture = (): LambdaArchitecture =>
  process.arch === 'arm64' ? 'arm64' : 'x86_64';
