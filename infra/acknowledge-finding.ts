import { Validations } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

/**
 * Records that a finding of cdk-nag's AWS Solutions rules on `scope` (and what it contains) is a
 * design decision, not a gap, and why. The reasons travel with the constructs: the nag test lists
 * every acknowledged finding, and docs/deployment.md says why each one stands.
 */
export function acknowledgeFinding(scope: IConstruct, rule: string, reason: string): void {
  Validations.of(scope).acknowledge({ id: `AwsSolutions::${rule}`, reason });
}
