// The part of the Lambda Node.js runtime a test needs: load the handler the way the runtime does
// (`_HANDLER` is `module.export`, the module found in the task root as .mjs, .js or .cjs), then
// invoke it with each event the parent sends. Plain JavaScript, run by plain node, so the
// process has the function's environment and nothing else.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const taskRoot = process.env.LAMBDA_TASK_ROOT;
const setting = process.env._HANDLER;
const dot = setting.lastIndexOf('.');
const moduleName = setting.slice(0, dot);
const exportName = setting.slice(dot + 1);

const describe = (error) => ({
  name: error?.name ?? 'Error',
  message: error?.message ?? String(error),
  stack: error?.stack,
});

let handler;
try {
  const file = ['.mjs', '.js', '.cjs']
    .map((extension) => join(taskRoot, `${moduleName}${extension}`))
    .find((candidate) => existsSync(candidate));
  if (file === undefined) throw new Error(`Cannot find module ${moduleName} in ${taskRoot}`);
  handler = (await import(pathToFileURL(file).href))[exportName];
  if (typeof handler !== 'function') throw new Error(`${setting} is not a function`);
  process.send({ type: 'ready' });
} catch (error) {
  process.send({ type: 'init-error', error: describe(error) });
}

process.on('message', async ({ id, event, context }) => {
  const deadline = Date.now() + context.timeoutMs;
  const lambdaContext = {
    ...context,
    callbackWaitsForEmptyEventLoop: true,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
  };
  try {
    process.send({ id, result: await handler(event, lambdaContext) });
  } catch (error) {
    process.send({ id, error: describe(error) });
  }
});
