import { CfnOutput, Duration, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import * as cloudwatchActions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as ses from 'aws-cdk-lib/aws-ses';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import type { Construct } from 'constructs';
import {
  type IndexProjection,
  tableIndexes,
  tableKeys,
  ttlAttribute,
} from '../shared/adapters/table-definition.js';
import { type SecretName, secretNames } from '../shared/config.js';
import { workQueueSizes } from '../shared/deployment-sizes.js';
import { acknowledgeFinding } from './acknowledge-finding.js';
import { DeliveryScheduler } from './delivery-scheduler.js';
import type { ServiceSettings } from './settings.js';
import { queueOutputNames, stageNameOf } from './stack-outputs.js';
import { WorkQueue } from './work-queue.js';

export interface DataStackProps extends StackProps {
  settings: ServiceSettings;
}

/** The work queues, by the name their routes give them (`queue: 'delivery'`). */
export type WorkQueues = Record<'delivery' | 'inbound' | 'accountCode', WorkQueue>;

/** `JWT_SIGNING_KEYS` → `JwtSigningKeys`: a secret's construct id. */
export const secretIdOf = (name: SecretName): string =>
  name
    .toLowerCase()
    .split('_')
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('');

/**
 * What outlives every deploy of code: the table, the work queues and their dead-letter queues, the
 * secrets, the delivery schedule group (its schedules are retries not made yet), the SES
 * configuration set and the alarm topic (its subscriptions are confirmed by hand). Termination
 * protection on; the table has deletion protection and point-in-time recovery; every stateful
 * resource is retained if the stack is deleted. Their logical ids are pinned by
 * test/infra/stacks.test.ts: a refactor that renamed one would create an empty twin.
 *
 * The service stacks take these by reference. Every value they can use is exported here whatever
 * uses it (`exportValue`), so this stack's template depends on nothing but itself: a consumer that
 * starts or stops using a value never changes it, and it never has to be deployed for one.
 * CloudFormation then refuses to delete or replace anything a consumer imports — as it should.
 */
export class DataStack extends Stack {
  readonly table: dynamodb.Table;
  readonly queues: WorkQueues;
  readonly secrets: Record<SecretName, secretsmanager.Secret>;
  readonly deliveryScheduler: DeliveryScheduler;
  readonly emailConfigurationSet: ses.ConfigurationSet;
  readonly alarmTopic: sns.Topic;
  readonly alarmAction: cloudwatchActions.SnsAction;

  constructor(scope: Construct, id: string, props: DataStackProps) {
    super(scope, id, { ...props, terminationProtection: true });
    const { settings } = props;
    const stageName = stageNameOf(settings.stage);

    this.alarmTopic = new sns.Topic(this, 'AlarmTopic', {
      displayName: `${stageName} alarms`,
      enforceSSL: true,
    });
    if (settings.alarmEmail !== undefined) {
      this.alarmTopic.addSubscription(new subscriptions.EmailSubscription(settings.alarmEmail));
    }
    this.alarmAction = new cloudwatchActions.SnsAction(this.alarmTopic);

    this.table = new dynamodb.Table(this, 'Table', {
      partitionKey: { name: tableKeys.partitionKey, type: dynamodb.AttributeType.STRING },
      sortKey: { name: tableKeys.sortKey, type: dynamodb.AttributeType.STRING },
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      timeToLiveAttribute: ttlAttribute,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      // Accounts and sessions outlive any one deployment, and any one mistake.
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    for (const index of tableIndexes) {
      const projection: IndexProjection = index.projection;
      this.table.addGlobalSecondaryIndex({
        indexName: index.indexName,
        partitionKey: { name: index.partitionKey, type: dynamodb.AttributeType.STRING },
        sortKey: { name: index.sortKey, type: dynamodb.AttributeType.STRING },
        projectionType: dynamodb.ProjectionType[projection.type],
        ...(projection.type === 'INCLUDE' ? { nonKeyAttributes: [...projection.attributes] } : {}),
      });
    }

    // Six times the worker's timeout (workQueueSizes says why); the local queues wait as long at most.
    const sixTimesWorkerTimeout = Duration.seconds(workQueueSizes.visibilityTimeoutSeconds);
    this.queues = {
      // Messages wait up to 15 minutes on purpose (the SQS delay of an early retry).
      delivery: new WorkQueue(this, 'Delivery', {
        visibilityTimeout: sixTimesWorkerTimeout,
        maxMessageAge: Duration.minutes(30),
      }),
      // A gateway's event is acknowledged at once; its effects should follow within minutes.
      inbound: new WorkQueue(this, 'Inbound', {
        visibilityTimeout: sixTimesWorkerTimeout,
        maxMessageAge: Duration.minutes(15),
      }),
      // Also longer than the 60 s code cooldown: a code whose send failed is redelivered after
      // the cooldown, so the retry issues and sends a fresh code instead of being absorbed. A
      // code older than its queue's alarm is one a user has given up waiting for.
      accountCode: new WorkQueue(this, 'AccountCode', {
        visibilityTimeout: sixTimesWorkerTimeout,
        maxMessageAge: Duration.minutes(5),
      }),
    };
    // What `npm run redrive -- <queue>` reads to move a dead-letter queue's messages back.
    for (const [name, work] of Object.entries(this.queues)) {
      const outputs = queueOutputNames(name);
      new CfnOutput(this, outputs.queueArn, { value: work.queue.queueArn });
      new CfnOutput(this, outputs.deadLetterQueueArn, { value: work.deadLetterQueue.queueArn });
    }

    // Every email goes through it: SES then counts sends, bounces and complaints per stage.
    this.emailConfigurationSet = new ses.ConfigurationSet(this, 'EmailConfigurationSet', {
      reputationMetrics: true,
    });
    this.emailConfigurationSet.addEventDestination('CloudWatch', {
      destination: ses.EventDestination.cloudWatchDimensions([
        {
          name: 'ses:configuration-set',
          source: ses.CloudWatchDimensionSource.MESSAGE_TAG,
          defaultValue: 'none',
        },
      ]),
      events: [
        ses.EmailSendingEvent.SEND,
        ses.EmailSendingEvent.REJECT,
        ses.EmailSendingEvent.DELIVERY,
        ses.EmailSendingEvent.BOUNCE,
        ses.EmailSendingEvent.COMPLAINT,
      ],
    });
    this.deliveryScheduler = new DeliveryScheduler(this, 'DeliveryScheduler', {
      groupName: `${stageName}-deliveries`,
      deliveryQueue: this.queues.delivery.queue,
    });

    // One secret per name of `secretNames` (what the routes may read: a route naming another
    // fails the synthesis), with a generated value: nothing secret is ever in the template.
    // Operators replace the gateway secrets with the gateways' values.
    this.secrets = {} as Record<SecretName, secretsmanager.Secret>;
    for (const name of secretNames) {
      const secret = new secretsmanager.Secret(this, secretIdOf(name), {
        description: `${name} of ${stageName}`,
        generateSecretString: { excludePunctuation: true, passwordLength: 64 },
        removalPolicy: RemovalPolicy.RETAIN,
      });
      acknowledgeFinding(
        secret,
        'AwsSolutions-SMG4',
        'Rotated by the documented procedure, not by a rotation function: the gateway and messaging secrets are set by those platforms, and the JWT keys and the pepper rotate in steps (the new value published or accepted before it is used) that a single-value rotation would break for tokens and codes in flight.',
      );
      new CfnOutput(this, `${secretIdOf(name)}Arn`, { value: secret.secretArn });
      this.secrets[name] = secret;
    }
    new CfnOutput(this, 'AlarmTopicArn', { value: this.alarmTopic.topicArn });

    for (const value of [
      this.table.tableName,
      this.table.tableArn,
      ...Object.values(this.queues).flatMap(({ queue, deadLetterQueue }) =>
        [queue, deadLetterQueue].flatMap((q) => [q.queueArn, q.queueUrl, q.queueName]),
      ),
      ...Object.values(this.secrets).map((secret) => secret.secretArn),
      this.deliveryScheduler.role.roleArn,
      this.emailConfigurationSet.configurationSetName,
      this.alarmTopic.topicArn,
    ]) {
      this.exportValue(value);
    }
  }
}
