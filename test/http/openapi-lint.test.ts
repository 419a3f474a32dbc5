import { resolve } from 'node:path';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import spectralCore from '@stoplight/spectral-core';
import owasp from '@stoplight/spectral-owasp-ruleset';
import spectralParsers from '@stoplight/spectral-parsers';
import { oas } from '@stoplight/spectral-rulesets';
import { describe, expect, it } from 'vitest';
import { operations } from '../../functions/routes.js';
import { openApiDocument } from '../../shared/http/openapi.js';

/**
 * The served document linted as a client developer's tooling would: Redocly's recommended rules,
 * Spectral's `oas` and the OWASP API Security Top 10 ruleset. No errors; the warnings that remain
 * are the ones docs/api-contract.md justifies, rule by rule, and no others.
 */

const { Document, Ruleset, Spectral } = spectralCore;

// Overrides match documents by path, relative to the ruleset's own (neither file is written).
const rulesetPath = resolve(import.meta.dirname, '.spectral.json');
const documentPath = resolve(import.meta.dirname, 'openapi.json');
const source = JSON.stringify(
  openApiDocument(operations, ['https://accounts.acme.test/v1']),
  null,
  2,
);

/** The warning rules docs/api-contract.md justifies ("Lint"); any other warning fails. */
const justifiedWarnings: Record<string, string> = {
  'owasp:api4:2023-string-restricted': 'free text (names, messages, descriptions) has no pattern',
  'owasp:api8:2023-define-error-responses-401': 'public operations cannot answer 401',
  'owasp:api8:2023-define-error-validation': 'operations without input cannot answer 400',
  'owasp:api4:2023-rate-limit-responses-429':
    "a receiver's 429 is Lambda's own answer at its reserved concurrency, whose body is not ours",
  'owasp:api2:2023-read-restricted': 'the messaging handshake is public by the platform protocol',
};

/** Receivers are called by payment gateways and the messaging platform, never by browsers. */
const receiverPaths = [
  ...new Set(operations.filter((route) => route.surface === 'function-url').map((r) => r.path)),
];

describe('the OpenAPI document under lint', () => {
  it('passes Redocly’s recommended rules with no error or warning', async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source, absoluteRef: 'openapi.json', config });
    expect(problems.map((problem) => `${problem.ruleId}: ${problem.message}`)).toEqual([]);
  });

  it('passes Spectral’s oas and OWASP rulesets with no error, each warning justified', async () => {
    const spectral = new Spectral();
    spectral.setRuleset(
      new Ruleset(
        {
          extends: [
            [oas, 'recommended'],
            [owasp, 'recommended'],
          ],
          overrides: [
            {
              files: receiverPaths.map(
                (path) => `openapi.json#/paths/${path.replaceAll('/', '~1')}`,
              ),
              rules: {
                // Server-to-server: no browser calls a receiver, so no CORS header is sent.
                'owasp:api8:2023-define-cors-origin': 'off',
                // Function URLs have no usage plan: reserved concurrency bounds them, and a sender's
                // retries must not be told to slow down by headers they ignore.
                'owasp:api4:2023-rate-limit': 'off',
                // The messaging platform's handshake protocol sends its verify token in the query
                // (hub.verify_token), and the document states the parameters as the platform sends them.
                'owasp:api2:2023-no-credentials-in-url': 'off',
              },
            },
          ],
        },
        { source: rulesetPath },
      ),
    );
    const results = await spectral.run(new Document(source, spectralParsers.Json, documentPath));
    const errors = results
      .filter((result) => result.severity === 0)
      .map((result) => `${result.code} at ${result.path.join('/')}`);
    expect(errors).toEqual([]);
    const warned = new Set(
      results.filter((result) => result.severity === 1).map((result) => String(result.code)),
    );
    expect([...warned].filter((code) => !(code in justifiedWarnings))).toEqual([]);
  });
});
