import { createHash, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  itemAccessesOf,
  type TablePartitionKeys,
} from '../../shared/local/dynamodb-item-access.js';
import type { DeployedFunction } from './deployed-functions.js';
import { roleStatements } from './deployed-functions.js';
import { type AuthorizationRequest, isAllowed } from './evaluate-policy.js';
import type { LocalDeployment } from './local-deployment.js';

/** A message some function sent to a queue of the stack. */
export interface SentMessage {
  /** The queue's logical id in the template. */
  queue: string;
  queueArn: string;
  body: string;
  delaySeconds: number;
  sender: string;
}

export interface SentEmail {
  from: string;
  /** The configuration set it was sent through, if any. */
  configurationSet: string | undefined;
  to: string[];
  subject: string;
  text: string;
  sender: string;
}

export interface SentText {
  to: string;
  message: string;
  sender: string;
}

export interface CreatedSchedule {
  name: string;
  group: string;
  expression: string;
  targetArn: string;
  roleArn: string;
  input: string;
  sender: string;
}

/** One request a function made, as the stand-in received it. */
export interface ReceivedCall {
  /** The service it was signed for (its credential scope's): `dynamodb`, `sqs`, … */
  service: string;
  sender: string;
  userAgent: string;
}

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** A table of the deployment: its ARN, its partition key, and each index's. */
interface TableKeys extends TablePartitionKeys {
  arn: string;
}

type KeySchema = { AttributeName: string; KeyType: string }[];

const json = (status: number, body: unknown, type = 'application/x-amz-json-1.0'): Answer => ({
  status,
  headers: { 'content-type': type },
  body: JSON.stringify(body),
});

const xml = (status: number, body: string): Answer => ({
  status,
  headers: { 'content-type': 'text/xml' },
  body,
});

const md5 = (text: string) => createHash('md5').update(text, 'utf8').digest('hex');

class AccessDenied extends Error {}

/**
 * One HTTP endpoint standing in for the AWS APIs the functions call — DynamoDB, SQS, SES, SNS and
 * EventBridge Scheduler — set as their SDK endpoint (`AWS_ENDPOINT_URL`). It knows each caller by
 * the access key its request is signed with, and answers as AWS would after asking IAM: every
 * call is checked against the statements of that function's role in the template (actions,
 * resources, `dynamodb:LeadingKeys` and the other condition keys), and refused with
 * AccessDenied otherwise. DynamoDB calls that pass go on to DynamoDB Local; the others are
 * recorded for the test to read.
 */
export class AwsStandIn {
  readonly messages: SentMessage[] = [];
  readonly emails: SentEmail[] = [];
  readonly texts: SentText[] = [];
  readonly schedules: CreatedSchedule[] = [];
  /** Every request a function made, refused or not. */
  readonly calls: ReceivedCall[] = [];
  /** Every refusal, and every call this stand-in does not model: a test expects none. */
  readonly refusals: string[] = [];
  private server: Server | undefined;
  private deployment: LocalDeployment | undefined;
  private callers = new Map<string, DeployedFunction>();
  private tables = new Map<string, TableKeys>();

  constructor(private readonly dynamoEndpoint: string) {}

  /**
   * Serves the functions of `deployment`. Separate from start(): the deployment's queue URLs
   * name this stand-in's address, known only once it listens.
   */
  serve(deployment: LocalDeployment, functions: readonly DeployedFunction[]): void {
    this.deployment = deployment;
    this.callers = new Map(functions.map((fn) => [fn.credentials.accessKeyId, fn]));
    this.tables = new Map(
      deployment.resourcesOf('AWS::DynamoDB::Table').map((id) => {
        const properties = deployment.properties(id) as {
          KeySchema: KeySchema;
          GlobalSecondaryIndexes?: { IndexName: string; KeySchema: KeySchema }[];
        };
        const hashOf = (schema: KeySchema) =>
          schema.find((key) => key.KeyType === 'HASH')!.AttributeName;
        return [
          deployment.ref(id),
          {
            arn: deployment.attribute(id, 'Arn'),
            partitionKey: hashOf(properties.KeySchema),
            indexPartitionKeys: Object.fromEntries(
              (properties.GlobalSecondaryIndexes ?? []).map((index) => [
                index.IndexName,
                hashOf(index.KeySchema),
              ]),
            ),
          },
        ];
      }),
    );
  }

  private get stack(): LocalDeployment {
    if (this.deployment === undefined) throw new Error('serve() a deployment first');
    return this.deployment;
  }

  async start(): Promise<string> {
    this.server = createServer((incoming, outgoing) => {
      this.answer(incoming)
        .then((answer) => {
          outgoing.writeHead(answer.status, answer.headers);
          outgoing.end(answer.body);
        })
        .catch((error: unknown) => {
          this.refusals.push(`stand-in failed: ${String(error)}`);
          outgoing.writeHead(500, { 'content-type': 'application/json' });
          outgoing.end(JSON.stringify({ message: String(error) }));
        });
    });
    await new Promise<void>((listening) => this.server!.listen(0, '127.0.0.1', listening));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((closed) =>
      this.server ? this.server.close(() => closed()) : closed(),
    );
  }

  private async answer(incoming: IncomingMessage): Promise<Answer> {
    const chunks: Buffer[] = [];
    for await (const chunk of incoming) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const scope =
      /Credential=([^/]+)\/\d{8}\/[^/]+\/([^/]+)\/aws4_request/.exec(
        incoming.headers.authorization ?? '',
      ) ?? [];
    const [, accessKeyId = '', service = ''] = scope;
    const caller = this.callers.get(accessKeyId);
    if (caller === undefined) return this.unexpected(`an unsigned or unknown caller (${service})`);
    if (incoming.headers['x-amz-security-token'] !== caller.credentials.sessionToken) {
      return this.unexpected(`${caller.logicalId} signed without its session token`);
    }
    this.calls.push({
      service,
      sender: caller.logicalId,
      userAgent: String(incoming.headers['user-agent'] ?? ''),
    });
    try {
      switch (service) {
        case 'dynamodb':
          return await this.dynamodb(caller, incoming, body);
        case 'sqs':
          return this.sqs(caller, String(incoming.headers['x-amz-target']), body.toString('utf8'));
        case 'ses':
          return this.ses(caller, new URLSearchParams(body.toString('utf8')));
        case 'sns':
          return this.sns(caller, new URLSearchParams(body.toString('utf8')));
        case 'scheduler':
          return this.scheduler(caller, incoming, body.toString('utf8'));
        default:
          return this.unexpected(`${caller.logicalId} called ${service}, which is not modelled`);
      }
    } catch (error) {
      if (!(error instanceof AccessDenied)) throw error;
      this.refusals.push(error.message);
      return service === 'ses' || service === 'sns'
        ? xml(
            403,
            `<ErrorResponse><Error><Type>Sender</Type><Code>AccessDenied</Code><Message>${error.message}</Message></Error><RequestId>${randomUUID()}</RequestId></ErrorResponse>`,
          )
        : service === 'scheduler'
          ? {
              status: 403,
              headers: {
                'content-type': 'application/json',
                'x-amzn-errortype': 'AccessDeniedException',
              },
              body: JSON.stringify({ Message: error.message }),
            }
          : json(400, {
              __type: 'com.amazon.coral.service#AccessDeniedException',
              message: error.message,
            });
    }
  }

  private unexpected(what: string): Answer {
    this.refusals.push(what);
    return json(400, { __type: 'UnknownOperationException', message: what });
  }

  /** Throws AccessDenied unless the caller's role allows every one of `requests`. */
  private authorize(caller: DeployedFunction, requests: AuthorizationRequest[]): void {
    for (const asked of requests) {
      if (!isAllowed(caller.statements, asked)) {
        throw new AccessDenied(
          `${caller.logicalId} is not authorized to perform ${asked.action} on ${asked.resource}` +
            (asked.context === undefined ? '' : ` with ${JSON.stringify(asked.context)}`),
        );
      }
    }
  }

  private table(name: string): TableKeys {
    const table = this.tables.get(name);
    if (table === undefined) throw new AccessDenied(`no table ${name} in this stack`);
    return table;
  }

  /** IAM's view of one DynamoDB request, with the ARNs of this deployment. */
  private dynamodbRequests(
    operation: string,
    input: Record<string, unknown>,
  ): AuthorizationRequest[] {
    return itemAccessesOf(operation, input, (name) => this.table(name)).map((access) => {
      const arn = this.table(access.tableName).arn;
      return {
        action: `dynamodb:${access.action}`,
        resource: access.indexName === undefined ? arn : `${arn}/index/${access.indexName}`,
        ...(access.leadingKeys === undefined
          ? {}
          : { context: { 'dynamodb:LeadingKeys': access.leadingKeys } }),
      };
    });
  }

  private async dynamodb(
    caller: DeployedFunction,
    incoming: IncomingMessage,
    body: Buffer,
  ): Promise<Answer> {
    const operation = String(incoming.headers['x-amz-target']).split('.')[1] ?? '';
    this.authorize(caller, this.dynamodbRequests(operation, JSON.parse(body.toString('utf8'))));
    const target = new URL(this.dynamoEndpoint);
    return new Promise<Answer>((answered, failed) => {
      const forwarded = request(
        {
          host: target.hostname,
          port: target.port,
          path: incoming.url,
          method: incoming.method,
          headers: { ...incoming.headers, host: target.host },
        },
        async (response) => {
          const parts: Buffer[] = [];
          for await (const part of response) parts.push(part as Buffer);
          answered({
            status: response.statusCode ?? 500,
            headers: { 'content-type': String(response.headers['content-type'] ?? '') },
            body: Buffer.concat(parts).toString('utf8'),
          });
        },
      );
      forwarded.on('error', failed);
      forwarded.end(body);
    });
  }

  private queueOf(url: string): { id: string; arn: string } {
    const id = this.stack.logicalIdOf(url);
    if (id === undefined) throw new AccessDenied(`no queue ${url} in this stack`);
    return { id, arn: this.stack.attribute(id, 'Arn') };
  }

  private sqs(caller: DeployedFunction, target: string, text: string): Answer {
    const input = JSON.parse(text) as {
      QueueUrl: string;
      MessageBody?: string;
      DelaySeconds?: number;
      Entries?: { Id: string; MessageBody: string; DelaySeconds?: number }[];
    };
    const queue = this.queueOf(input.QueueUrl);
    // SendMessageBatch is authorised as sqs:SendMessage.
    this.authorize(caller, [{ action: 'sqs:SendMessage', resource: queue.arn }]);
    const record = (body: string, delaySeconds = 0) => {
      this.messages.push({
        queue: queue.id,
        queueArn: queue.arn,
        body,
        delaySeconds,
        sender: caller.logicalId,
      });
      return { MessageId: randomUUID(), MD5OfMessageBody: md5(body) };
    };
    switch (target) {
      case 'AmazonSQS.SendMessage':
        return json(200, record(input.MessageBody!, input.DelaySeconds));
      case 'AmazonSQS.SendMessageBatch':
        return json(200, {
          Successful: input.Entries!.map((entry) => ({
            Id: entry.Id,
            ...record(entry.MessageBody, entry.DelaySeconds),
          })),
          Failed: [],
        });
      default:
        return this.unexpected(`${caller.logicalId} called SQS ${target}`);
    }
  }

  /**
   * SES authorises the sending identity (the From address's, or its domain's) and, for an email
   * sent through a configuration set, that configuration set as well.
   */
  private ses(caller: DeployedFunction, form: URLSearchParams): Answer {
    if (form.get('Action') !== 'SendEmail') {
      return this.unexpected(`${caller.logicalId} called SES ${form.get('Action')}`);
    }
    const from = form.get('Source') ?? '';
    const identityArn = (identity: string) =>
      `arn:aws:ses:${this.stack.region}:${this.stack.account}:identity/${identity}`;
    const asked = (identity: string): AuthorizationRequest => ({
      action: 'ses:SendEmail',
      resource: identityArn(identity),
      context: { 'ses:FromAddress': from },
    });
    const domain = from.slice(from.lastIndexOf('@') + 1);
    if (![from, domain].some((identity) => isAllowed(caller.statements, asked(identity)))) {
      this.authorize(caller, [asked(from)]);
    }
    const configurationSet = form.get('ConfigurationSetName') ?? undefined;
    if (configurationSet !== undefined) {
      this.authorize(caller, [
        {
          action: 'ses:SendEmail',
          resource: `arn:aws:ses:${this.stack.region}:${this.stack.account}:configuration-set/${configurationSet}`,
          context: { 'ses:FromAddress': from },
        },
      ]);
    }
    const to = [...form.entries()]
      .filter(([name]) => name.startsWith('Destination.ToAddresses.member.'))
      .map(([, value]) => value);
    this.emails.push({
      from,
      configurationSet,
      to,
      subject: form.get('Message.Subject.Data') ?? '',
      text: form.get('Message.Body.Text.Data') ?? '',
      sender: caller.logicalId,
    });
    return xml(
      200,
      `<SendEmailResponse><SendEmailResult><MessageId>${randomUUID()}</MessageId></SendEmailResult><ResponseMetadata><RequestId>${randomUUID()}</RequestId></ResponseMetadata></SendEmailResponse>`,
    );
  }

  private sns(caller: DeployedFunction, form: URLSearchParams): Answer {
    if (form.get('Action') !== 'Publish') {
      return this.unexpected(`${caller.logicalId} called SNS ${form.get('Action')}`);
    }
    const phone = form.get('PhoneNumber');
    // A direct-to-phone publish names no topic: IAM sees the number, which no topic ARN matches.
    this.authorize(caller, [
      { action: 'sns:Publish', resource: form.get('TopicArn') ?? phone ?? '' },
    ]);
    this.texts.push({
      to: phone ?? '',
      message: form.get('Message') ?? '',
      sender: caller.logicalId,
    });
    return xml(
      200,
      `<PublishResponse><PublishResult><MessageId>${randomUUID()}</MessageId></PublishResult><ResponseMetadata><RequestId>${randomUUID()}</RequestId></ResponseMetadata></PublishResponse>`,
    );
  }

  /**
   * CreateSchedule also passes the schedule's role, which the caller must be allowed to pass to
   * the scheduler; and that role must be allowed to send to the target queue, or the schedule
   * fires into a refusal nobody sees.
   */
  private scheduler(caller: DeployedFunction, incoming: IncomingMessage, text: string): Answer {
    const url = new URL(incoming.url ?? '/', 'http://stand-in');
    const name = decodeURIComponent(url.pathname.replace(/^\/schedules\//, ''));
    const scheduleArn = (group: string) =>
      `arn:aws:scheduler:${this.stack.region}:${this.stack.account}:schedule/${group}/${name}`;
    if (incoming.method === 'DELETE') {
      const group = url.searchParams.get('groupName') ?? 'default';
      this.authorize(caller, [
        { action: 'scheduler:DeleteSchedule', resource: scheduleArn(group) },
      ]);
      return json(200, {}, 'application/json');
    }
    if (incoming.method !== 'POST') {
      return this.unexpected(`${caller.logicalId} called Scheduler ${incoming.method}`);
    }
    const input = JSON.parse(text) as {
      GroupName?: string;
      ScheduleExpression: string;
      Target: { Arn: string; RoleArn: string; Input?: string };
    };
    const group = input.GroupName ?? 'default';
    this.authorize(caller, [
      { action: 'scheduler:CreateSchedule', resource: scheduleArn(group) },
      {
        action: 'iam:PassRole',
        resource: input.Target.RoleArn,
        context: { 'iam:PassedToService': 'scheduler.amazonaws.com' },
      },
    ]);
    const roleId = this.stack.logicalIdOf(input.Target.RoleArn);
    if (
      roleId === undefined ||
      !isAllowed(roleStatements(this.stack, roleId), {
        action: 'sqs:SendMessage',
        resource: input.Target.Arn,
      })
    ) {
      throw new AccessDenied(`the schedule's role may not send to ${input.Target.Arn}`);
    }
    this.schedules.push({
      name,
      group,
      expression: input.ScheduleExpression,
      targetArn: input.Target.Arn,
      roleArn: input.Target.RoleArn,
      input: input.Target.Input ?? '',
      sender: caller.logicalId,
    });
    return json(200, { ScheduleArn: scheduleArn(group) }, 'application/json');
  }
}
