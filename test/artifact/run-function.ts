import { type ChildProcess, fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import type { DeployedFunction } from './deployed-functions.js';

const bootstrap = new URL('./lambda-bootstrap.mjs', import.meta.url).pathname;

/** An initialised instance of one function: invoke it, read its logs, stop it. */
export interface FunctionInstance {
  invoke<TResult>(event: unknown): Promise<TResult>;
  /** What the function wrote to stdout and stderr so far. */
  logs(): string;
  stop(): void;
}

interface Reply {
  id?: string;
  type?: 'ready' | 'init-error';
  result?: unknown;
  error?: { name: string; message: string; stack?: string };
}

/** What Lambda itself puts in every function's environment, beside the function's own. */
function lambdaEnvironment(fn: DeployedFunction, region: string): Record<string, string> {
  return {
    AWS_REGION: region,
    AWS_DEFAULT_REGION: region,
    AWS_ACCESS_KEY_ID: fn.credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: fn.credentials.secretAccessKey,
    AWS_SESSION_TOKEN: fn.credentials.sessionToken,
    AWS_LAMBDA_FUNCTION_NAME: fn.name,
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(fn.memorySize),
    AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
    AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
    AWS_EXECUTION_ENV: `AWS_Lambda_${fn.runtime}`,
    LAMBDA_TASK_ROOT: fn.assetDirectory,
    _HANDLER: fn.handler,
    LANG: 'en_US.UTF-8',
    TZ: ':UTC',
    PATH: '/usr/local/bin:/usr/bin:/bin',
  };
}

/**
 * Starts one instance of a function from its shipped bundle, in a process of its own whose
 * environment is exactly the template's variables plus what Lambda adds (region, the role's
 * credentials, the handler setting) and `overrides` (where the stand-ins listen). Resolves once
 * the module is loaded, as Lambda's init phase; a bundle that cannot load rejects.
 */
export async function startFunction(
  fn: DeployedFunction,
  region: string,
  overrides: Record<string, string>,
): Promise<FunctionInstance> {
  let output = '';
  const child: ChildProcess = fork(bootstrap, [], {
    env: { ...lambdaEnvironment(fn, region), ...fn.environment, ...overrides },
    execArgv: [],
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
  });
  const pending = new Map<string, (reply: Reply) => void>();
  const exited = new Promise<Reply>((settle) =>
    child.once('exit', (code) =>
      settle({
        error: { name: 'Exited', message: `${fn.logicalId} exited (${code}):\n${output}` },
      }),
    ),
  );
  child.on('message', (reply: Reply) => {
    if (reply.id !== undefined) pending.get(reply.id)?.(reply);
  });
  const init = await Promise.race([
    new Promise<Reply>((settle) =>
      child.on('message', (reply: Reply) => {
        if (reply.type !== undefined) settle(reply);
      }),
    ),
    exited,
  ]);
  if (init.type !== 'ready') {
    child.kill();
    throw new Error(`${fn.logicalId} failed to initialise: ${init.error?.message}\n${output}`);
  }
  return {
    async invoke<TResult>(event: unknown): Promise<TResult> {
      const id = randomUUID();
      const reply = await Promise.race([
        new Promise<Reply>((settle) => {
          pending.set(id, settle);
          child.send({
            id,
            event,
            context: {
              awsRequestId: id,
              functionName: fn.name,
              functionVersion: '$LATEST',
              invokedFunctionArn: fn.arn,
              memoryLimitInMB: String(fn.memorySize),
              logGroupName: `/aws/lambda/${fn.name}`,
              logStreamName: 'local',
              timeoutMs: fn.timeoutSeconds * 1000,
            },
          });
        }),
        exited,
      ]);
      pending.delete(id);
      if (reply.error !== undefined) {
        throw new Error(`${fn.logicalId} failed: ${reply.error.message}\n${output}`);
      }
      return reply.result as TResult;
    },
    logs: () => output,
    stop: () => {
      child.kill();
    },
  };
}
