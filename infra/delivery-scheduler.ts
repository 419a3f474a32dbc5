import { RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { DeliveryScheduler as DeliverySchedulerBinding } from './service-function.js';

export interface DeliverySchedulerProps {
  /** The group's name: the stage's (`<service>-<stage>-deliveries`), fixed. */
  groupName: string;
  deliveryQueue: IQueue;
}

/**
 * The schedule group holding the one-time schedules of the retry ladder (+5 min … +24 h: longer
 * than SQS's 15-minute delay), and the role those schedules assume to put the delivery message
 * back on the queue.
 */
export class DeliveryScheduler extends Construct implements DeliverySchedulerBinding {
  readonly group: scheduler.CfnScheduleGroup;
  readonly groupName: string;
  readonly role: iam.Role;
  readonly deliveryQueue: IQueue;

  constructor(scope: Construct, id: string, props: DeliverySchedulerProps) {
    super(scope, id);
    this.group = new scheduler.CfnScheduleGroup(this, 'Group', { name: props.groupName });
    // Its schedules are retries not made yet: deleting the group would drop them.
    this.group.applyRemovalPolicy(RemovalPolicy.RETAIN);
    // The name, not a reference: functions of other stacks name it in their grants.
    this.groupName = props.groupName;
    this.deliveryQueue = props.deliveryQueue;
    this.role = new iam.Role(this, 'Role', {
      description: 'Assumed by delivery retry schedules to enqueue the next attempt',
      // Only schedules of this account may assume it (the confused-deputy guard).
      assumedBy: new iam.ServicePrincipal('scheduler.amazonaws.com', {
        conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(this).account } },
      }),
    });
    this.role.addToPolicy(
      new iam.PolicyStatement({
        actions: ['sqs:SendMessage'],
        resources: [props.deliveryQueue.queueArn],
      }),
    );
  }
}
