import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { setPriority, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { mergedTemplate } from '../support/merged-templates.js';

/** A CloudFormation template as `cdk synth` writes it. */
export interface Template {
  Resources: Record<string, TemplateResource>;
  Mappings?: Record<string, Record<string, Record<string, unknown>>>;
  Outputs?: Record<string, { Value: unknown }>;
}

export interface TemplateResource {
  Type: string;
  Properties?: Record<string, unknown>;
  Metadata?: Record<string, unknown>;
}

/**
 * The cloud assembly of one synthesis: the stage's stacks as one template (references between
 * them resolved: test/support/merged-templates.ts) and their bundled assets.
 */
export interface SynthesizedStack {
  /** The stacks' names. */
  stackNames: string[];
  template: Template;
  /** The directory of a resource's asset (a Lambda function's bundle), as the template names it. */
  assetDirectory(logicalId: string): string;
  /** The directory of the asset uploaded as `<hash>.zip` (a BucketDeployment's source). */
  assetOfObjectKey(objectKey: string): string;
  remove(): Promise<void>;
}

const projectRoot = resolve(import.meta.dirname, '..', '..');

/**
 * `cdk synth` as an operator runs it — the CLI, the checked-in cdk.json, every stack of the stage,
 * bundling by the project's own esbuild, no Docker and no network (`npm_config_offline`) — into a
 * fresh directory, plus any `-c` context given here.
 */
export async function synthesizeStack(context: Record<string, string>): Promise<SynthesizedStack> {
  const outdir = await mkdtemp(join(tmpdir(), 'synthesized-stack-'));
  const cli = createRequire(import.meta.url).resolve('aws-cdk/bin/cdk');
  const contextArgs = Object.entries(context).flatMap(([key, value]) => ['-c', `${key}=${value}`]);
  try {
    const synth = promisify(execFile)(
      process.execPath,
      [cli, 'synth', '--no-notices', '--quiet', '-o', outdir, ...contextArgs],
      {
        cwd: projectRoot,
        env: { ...process.env, CDK_DISABLE_CLI_TELEMETRY: 'true', npm_config_offline: 'true' },
        maxBuffer: 64 * 1024 * 1024,
      },
    );
    // A minute of bundling at full CPU would slow the other test files' waits beside it; at a
    // lower priority (inherited by the bundlers it starts) it takes the cores they leave idle.
    if (synth.child.pid !== undefined) setPriority(synth.child.pid, 10);
    await synth;
  } catch (error) {
    await rm(outdir, { recursive: true, force: true });
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`cdk synth failed:\n${(stderr ?? '').slice(-4000)}\n${stdout ?? ''}`);
  }
  const manifest = JSON.parse(await readFile(join(outdir, 'manifest.json'), 'utf8')) as {
    artifacts: Record<string, { type: string; properties?: { templateFile?: string } }>;
  };
  const stacks = Object.entries(manifest.artifacts).filter(
    ([, artifact]) => artifact.type === 'aws:cloudformation:stack',
  );
  const templates: Record<string, Template> = Object.fromEntries(
    await Promise.all(
      stacks.map(
        async ([stackName, artifact]) =>
          [
            stackName,
            JSON.parse(
              await readFile(join(outdir, artifact.properties!.templateFile!), 'utf8'),
            ) as Template,
          ] as const,
      ),
    ),
  );
  const template = mergedTemplate(templates);
  return {
    stackNames: Object.keys(templates),
    template,
    assetDirectory(logicalId) {
      const path = template.Resources[logicalId]?.Metadata?.['aws:asset:path'];
      if (typeof path !== 'string') throw new Error(`${logicalId} has no asset`);
      return join(outdir, path);
    },
    assetOfObjectKey: (objectKey) => join(outdir, `asset.${objectKey.replace(/\.zip$/, '')}`),
    remove: () => rm(outdir, { recursive: true, force: true }),
  };
}
