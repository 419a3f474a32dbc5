import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The repository stands alone: a clone holds everything its files point to. No file links to a
 * path outside the clone — a relative path that climbs out of the root, a path quoted in a code
 * block that names no file of the repository — nor names a document a clone does not have, nor
 * explains itself by the history of the tracker the work was planned in. The reference is the
 * OpenAPI document and docs/.
 */

const root = resolve(import.meta.dirname, '..', '..');

/** Every file of the repository: tracked ones, and new ones not ignored. */
const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
  cwd: root,
  encoding: 'utf8',
})
  .split('\n')
  .filter((file) => file !== '' && existsSync(resolve(root, file)));

const textFiles = files
  .map((file) => ({ file, bytes: readFileSync(resolve(root, file)) }))
  .filter(({ bytes }) => !bytes.includes(0))
  .map(({ file, bytes }) => ({ file, text: bytes.toString('utf8') }));

/** A relative path: one `../` or more, then a name. */
const climbing = /(?<![\w.])((?:\.\.\/)+)([\w@.-][\w@./-]*)/g;

/** Markdown's fenced code blocks: code quoted from elsewhere, so its relative paths have no base here. */
const fences = /^```[^\n]*\n[\s\S]*?^```/gm;

const isInside = (path: string) => {
  const fromRoot = relative(root, path);
  return fromRoot !== '..' && !fromRoot.startsWith(`..${sep}`);
};

/** A module specifier names its `.ts` source with `.js`. */
const existsInRepository = (path: string) =>
  [path, path.replace(/\.js$/, '.ts'), path.replace(/\.js$/, '.tsx')].some((candidate) =>
    existsSync(resolve(root, candidate)),
  );

function climbingOut(file: string, text: string): string[] {
  const quoted = file.endsWith('.md') ? [...text.matchAll(fences)].map((fence) => fence[0]) : [];
  const prose = quoted.reduce((rest, fence) => rest.replace(fence, ''), text);
  const outOfRoot = [...prose.matchAll(climbing)]
    .filter((found) => !isInside(resolve(root, dirname(file), found[0])))
    .map((found) => `${file}: ${found[0]} is outside the repository`);
  // A snippet's `../../shared/x.js` is relative to the file it came from: it must name a file here.
  const unknown = quoted.flatMap((fence) =>
    [...fence.matchAll(climbing)]
      .filter((found) => !existsInRepository(found[2]!.replace(/[.,:;)]+$/, '')))
      .map((found) => `${file}: ${found[0]} (in a code block) names no file of the repository`),
  );
  return [...outOfRoot, ...unknown];
}

/** Documents of the planning, and the tracker's history: not in a clone, so not for a reader. */
const outsideNames: [RegExp, string][] = [
  [
    /(?<![\w/-])(?:contract|service-interface|design-card|style|performance-profile)\.md\b/gi,
    'a planning document',
  ],
  [/\bshared\/(?:spec|notes)\b/g, 'the planning folder'],
  [/\bdesign[- ]card\b/gi, 'the design card'],
  [/(?<![\w.-])\/(?:work|home\/\w[\w.-]*|Users\/\w[\w.-]*)\//g, 'a path of one machine'],
  [/\bfile:\/\/\/?\w/gi, 'a file of one machine'],
  [/\bissues? #?\d+\b/gi, "the tracker's issue numbers"],
  [/\b(?:first|second|third|fourth|fifth|next) round\b/gi, "the tracker's rounds"],
];

function namesOutside(file: string, text: string): string[] {
  return outsideNames.flatMap(([pattern, what]) =>
    [...text.matchAll(pattern)].map((found) => {
      const line = text.slice(0, found.index).split('\n').length;
      return `${file}:${line}: "${found[0]}" (${what})`;
    }),
  );
}

/** This file names what it refuses. */
const self = relative(root, import.meta.filename);

describe('the repository stands alone', () => {
  it('reads every file of the repository', () => {
    expect(textFiles.length).toBeGreaterThan(300);
    expect(textFiles.map(({ file }) => file)).toEqual(
      expect.arrayContaining(['README.md', 'docs/guide.md']),
    );
  });

  it('has no relative path that climbs out of its root', () => {
    expect(textFiles.flatMap(({ file, text }) => climbingOut(file, text))).toEqual([]);
  });

  it('names no document a clone lacks, and no issue or round of the tracker', () => {
    const found = textFiles
      .filter(({ file }) => file !== self)
      .flatMap(({ file, text }) => namesOutside(file, text));
    expect(found).toEqual([]);
  });

  it('refuses what it looks for', () => {
    expect(
      climbingOut('README.md', 'The interface is `../shared/spec/service-interface.md`.'),
    ).toHaveLength(1);
    expect(climbingOut('docs/a.md', '[contract](../../contract.md)')).toHaveLength(1);
    expect(
      climbingOut('docs/a.md', '```ts\nimport { x } from "../../shared/spec/x.js";\n```'),
    ).toHaveLength(1);
    expect(
      climbingOut(
        'docs/a.md',
        '```ts\nimport { x } from "../../shared/adapters/dynamodb.js";\n```',
      ),
    ).toEqual([]);
    expect(
      climbingOut('bench/a.ts', "import { x } from '../shared/adapters/dynamodb.js';"),
    ).toEqual([]);
    expect(
      namesOutside('a.ts', '(contract.md, "Rate limits"), issue 16, the third round'),
    ).toHaveLength(3);
    expect(namesOutside('a.md', 'docs/api-contract.md')).toEqual([]);
    expect(
      namesOutside(
        'a.md',
        'see /home/ada/service/README.md, /Users/ada/x.ts and file:///tmp/report.html',
      ),
    ).toHaveLength(3);
    // A placeholder of any machine's path, and the repository's own folders, are not one machine's.
    expect(namesOutside('a.md', "import('file:///…/index.mjs'), shared/local/runtime.ts")).toEqual(
      [],
    );
  });
});
