import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { operations } from '../../functions/routes.js';
import { answerOf, errorsOf } from '../../shared/http/answers.js';
import { statusOfCode } from '../../shared/http/responses.js';

/**
 * `npm run contract:coverage`, after `npm test`: which operations and documented statuses the
 * contract test saw answered (test-results/contract/, written by checkContract), and which not.
 */

const directory = resolve(import.meta.dirname, '..', '..', 'test-results', 'contract');
const seen = new Set(
  readdirSync(directory).flatMap((file) =>
    readFileSync(resolve(directory, file), 'utf8').split('\n').filter(Boolean),
  ),
);

let pairs = 0;
for (const route of operations) {
  const statuses = [
    route.successStatus ?? 200,
    ...new Set(errorsOf(route).map((code) => statusOfCode[code])),
  ];
  const missing = statuses.filter((status) => !seen.has(`${route.name} ${status}`));
  pairs += statuses.length - missing.length;
  const kind = answerOf(route).document === undefined ? '' : ' (document)';
  const line = missing.length === 0 ? 'every documented status' : `not seen: ${missing.join(', ')}`;
  console.log(`${route.name}${kind}: ${line}`);
}
console.log(`\n${pairs} operation/status pairs checked against the document.`);
