import { describe, expect, it } from 'vitest';
import { itemAccessesOf } from '../../shared/local/dynamodb-item-access.js';
import { isAllowed, type PolicyStatement } from '../artifact/evaluate-policy.js';

const keysOf = () => ({ partitionKey: 'pk', indexPartitionKeys: { gsi2: 'gsi2pk' } });
const tableArn = 'arn:aws:dynamodb:us-east-1:123456789012:table/t';

/** A role allowed item access to USER# and EMAIL# partitions, and gsi2's DELIVERIES_DUE. */
const statements: PolicyStatement[] = [
  {
    Effect: 'Allow',
    Action: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:Query'],
    Resource: tableArn,
    Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['USER#*', 'EMAIL#*'] } },
  },
  {
    Effect: 'Allow',
    Action: 'dynamodb:Query',
    Resource: `${tableArn}/index/gsi2`,
    Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['DELIVERIES_DUE'] } },
  },
];

const allowed = (operation: string, input: Record<string, unknown>) =>
  itemAccessesOf(operation, input, keysOf).every((access) =>
    isAllowed(statements, {
      action: `dynamodb:${access.action}`,
      resource: access.indexName ? `${tableArn}/index/${access.indexName}` : tableArn,
      ...(access.leadingKeys ? { context: { 'dynamodb:LeadingKeys': access.leadingKeys } } : {}),
    }),
  );

describe('what IAM sees of a DynamoDB request', () => {
  it('authorises a transaction item by item, each as the action it performs', () => {
    const transaction = (guard: string) => ({
      TransactItems: [
        { Put: { TableName: 't', Item: { pk: { S: 'USER#u1' }, sk: { S: 'PROFILE' } } } },
        { ConditionCheck: { TableName: 't', Key: { pk: { S: guard }, sk: { S: '#' } } } },
      ],
    });
    expect(itemAccessesOf('TransactWriteItems', transaction('EMAIL#a@b.c'), keysOf)).toEqual([
      { action: 'PutItem', tableName: 't', leadingKeys: ['USER#u1'] },
      { action: 'ConditionCheckItem', tableName: 't', leadingKeys: ['EMAIL#a@b.c'] },
    ]);
    // ConditionCheckItem is not granted here, so the guard item refuses the whole transaction.
    expect(allowed('TransactWriteItems', transaction('EMAIL#a@b.c'))).toBe(false);
  });

  it('reads a query’s partition from its key condition, on the index it names', () => {
    const query = (partition: string, index?: string) => ({
      TableName: 't',
      ...(index ? { IndexName: index } : {}),
      KeyConditionExpression: `${index ? 'gsi2pk' : '#pk'} = :p AND begins_with(sk, :s)`,
      ExpressionAttributeNames: index ? undefined : { '#pk': 'pk' },
      ExpressionAttributeValues: { ':p': { S: partition }, ':s': { S: 'SESSION#' } },
    });
    expect(allowed('Query', query('USER#u1'))).toBe(true);
    expect(allowed('Query', query('DELIVERIES_DUE', 'gsi2'))).toBe(true);
    // The same value on the table, or another partition of the index: refused.
    expect(allowed('Query', query('DELIVERIES_DUE'))).toBe(false);
    expect(allowed('Query', query('ENDPOINT_FAILED#e1', 'gsi2'))).toBe(false);
  });

  it('refuses an item of a family the role does not hold, and a Scan, which no key can guard', () => {
    expect(
      allowed('GetItem', { TableName: 't', Key: { pk: { S: 'USER#u1' }, sk: { S: 'PROFILE' } } }),
    ).toBe(true);
    expect(
      allowed('GetItem', { TableName: 't', Key: { pk: { S: 'REFRESH#h' }, sk: { S: '#' } } }),
    ).toBe(false);
    expect(itemAccessesOf('Scan', { TableName: 't' }, keysOf)).toEqual([
      { action: 'Scan', tableName: 't' },
    ]);
    expect(allowed('Scan', { TableName: 't' })).toBe(false);
  });
});

describe('the IAM evaluator of the artifact test', () => {
  it('passes ForAllValues on a missing key (the empty set) and fails a plain operator', () => {
    const scanAllowed: PolicyStatement[] = [
      {
        Effect: 'Allow',
        Action: 'dynamodb:Scan',
        Resource: tableArn,
        Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['USER#*'] } },
      },
    ];
    // Why no function is ever granted Scan: the condition cannot hold it back.
    expect(isAllowed(scanAllowed, { action: 'dynamodb:Scan', resource: tableArn })).toBe(true);
    const fromAddress: PolicyStatement[] = [
      {
        Effect: 'Allow',
        Action: 'ses:SendEmail',
        Resource: '*',
        Condition: { StringEquals: { 'ses:FromAddress': 'a@example.com' } },
      },
    ];
    expect(isAllowed(fromAddress, { action: 'ses:SendEmail', resource: 'x' })).toBe(false);
  });

  it('reads NotResource as everything but, and lets a Deny win', () => {
    const phonesOnly: PolicyStatement[] = [
      { Effect: 'Allow', Action: 'sns:Publish', NotResource: 'arn:aws:sns:*:*:*' },
    ];
    expect(isAllowed(phonesOnly, { action: 'sns:Publish', resource: '+15555550123' })).toBe(true);
    expect(
      isAllowed(phonesOnly, { action: 'sns:Publish', resource: 'arn:aws:sns:us-east-1:1:alarms' }),
    ).toBe(false);
    expect(
      isAllowed([...phonesOnly, { Effect: 'Deny', Action: 'sns:*', Resource: '*' }], {
        action: 'sns:Publish',
        resource: '+15555550123',
      }),
    ).toBe(false);
  });
});
