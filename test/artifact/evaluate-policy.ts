/** An IAM policy statement with its intrinsics resolved. */
export interface PolicyStatement {
  Effect: 'Allow' | 'Deny';
  Action?: string | string[];
  NotAction?: string | string[];
  Resource?: string | string[];
  NotResource?: string | string[];
  Condition?: Record<string, Record<string, string | string[]>>;
}

/** One authorisation question, as the service asks it: action, resource, condition keys. */
export interface AuthorizationRequest {
  action: string;
  resource: string;
  /** Condition keys (`dynamodb:LeadingKeys`, `ses:FromAddress`, …) and their values. */
  context?: Record<string, string | string[]>;
}

const asList = <T>(value: T | T[] | undefined): T[] =>
  value === undefined ? [] : Array.isArray(value) ? value : [value];

/** IAM's wildcards: `*` any run of characters, `?` one character. */
function globMatches(pattern: string, value: string, ignoreCase = false): boolean {
  const source = pattern
    .split('')
    .map((character) =>
      character === '*'
        ? '.*'
        : character === '?'
          ? '.'
          : character.replace(/[.+^${}()|[\]\\]/g, '\\$&'),
    )
    .join('');
  return new RegExp(`^${source}$`, ignoreCase ? 'is' : 's').test(value);
}

type Comparison = (policyValue: string, requestValue: string) => boolean;

const comparisons: Record<string, Comparison> = {
  StringEquals: (expected, actual) => expected === actual,
  StringLike: (pattern, actual) => globMatches(pattern, actual),
  ArnEquals: (expected, actual) => expected === actual,
  ArnLike: (pattern, actual) => globMatches(pattern, actual),
};

/**
 * One condition operator on one key, as IAM evaluates it: a missing key fails a plain operator
 * (unless …IfExists), and passes ForAllValues (the empty set) — which is why a LeadingKeys
 * condition never guards an action that has no key, such as Scan.
 */
function conditionHolds(
  operator: string,
  policyValues: string[],
  requestValues?: string[],
): boolean {
  const [qualifier, base] = operator.includes(':') ? operator.split(':') : [undefined, operator];
  const ifExists = base!.endsWith('IfExists');
  const name = ifExists ? base!.slice(0, -'IfExists'.length) : base!;
  if (name === 'Null') {
    const wantsMissing = policyValues.includes('true');
    return wantsMissing === (requestValues === undefined || requestValues.length === 0);
  }
  const compare = comparisons[name];
  if (compare === undefined) throw new Error(`Condition operator ${operator} is not modelled here`);
  const matchesAny = (value: string) => policyValues.some((expected) => compare(expected, value));
  switch (qualifier) {
    case 'ForAllValues':
      return (requestValues ?? []).every(matchesAny);
    case 'ForAnyValue':
      return (requestValues ?? []).some(matchesAny);
    case undefined:
      if (requestValues === undefined) return ifExists;
      return requestValues.length === 1 && matchesAny(requestValues[0]!);
    default:
      throw new Error(`Condition qualifier ${qualifier} is not modelled here`);
  }
}

function statementApplies(statement: PolicyStatement, request: AuthorizationRequest): boolean {
  const actionMatches = (pattern: string) => globMatches(pattern, request.action, true);
  const resourceMatches = (pattern: string) => globMatches(pattern, request.resource);
  const action =
    statement.NotAction !== undefined
      ? !asList(statement.NotAction).some(actionMatches)
      : asList(statement.Action).some(actionMatches);
  const resource =
    statement.NotResource !== undefined
      ? !asList(statement.NotResource).some(resourceMatches)
      : asList(statement.Resource).some(resourceMatches);
  if (!action || !resource) return false;
  const context = Object.fromEntries(
    Object.entries(request.context ?? {}).map(([key, value]) => [key.toLowerCase(), asList(value)]),
  );
  return Object.entries(statement.Condition ?? {}).every(([operator, keys]) =>
    Object.entries(keys).every(([key, values]) =>
      conditionHolds(operator, asList(values), context[key.toLowerCase()]),
    ),
  );
}

/** IAM's verdict for identity policies: allowed when a statement allows and none denies. */
export function isAllowed(statements: PolicyStatement[], request: AuthorizationRequest): boolean {
  const applicable = statements.filter((statement) => statementApplies(statement, request));
  return (
    applicable.some((statement) => statement.Effect === 'Allow') &&
    !applicable.some((statement) => statement.Effect === 'Deny')
  );
}
