import type { GenericSchema } from 'valibot';
import { dynamoWindowCounter } from '../../shared/adapters/dynamo-window-counter.js';
import { type ApiOperation, type Auth, apiOperation } from '../../shared/http/operation.js';

/** A made-up API operation for tests of the HTTP layer: only what the test sets matters. */
export function testOperation<
  TBody extends GenericSchema | undefined = undefined,
  TQuery extends GenericSchema | undefined = undefined,
  TParams extends GenericSchema | undefined = undefined,
  TAuth extends Auth = 'none',
>(
  parts: Partial<Omit<ApiOperation<TBody, TQuery, TParams, TAuth>, 'surface'>> = {},
): ApiOperation<TBody, TQuery, TParams, TAuth> {
  return apiOperation<TBody, TQuery, TParams, TAuth>({
    name: 'testOperation',
    method: 'POST',
    path: '/test',
    entry: 'test.ts',
    auth: 'none' as TAuth,
    tag: 'meta',
    title: 'Test route',
    summary: 'A route of a test',
    needs: {},
    ...parts,
  });
}

/** The edge the deployed handlers get: rate limits counted in the table. */
export const tableCounter = { counter: dynamoWindowCounter };
