import { randomBytes } from 'node:crypto';
import type { PolicyStatement } from './evaluate-policy.js';
import type { LocalDeployment } from './local-deployment.js';
import type { SynthesizedStack } from './synthesize-stack.js';

export interface Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken: string;
}

/** A Lambda function of the template, as the stand-ins and the runner need it. */
export interface DeployedFunction {
  logicalId: string;
  name: string;
  arn: string;
  handler: string;
  runtime: string;
  architecture: string;
  memorySize: number;
  timeoutSeconds: number;
  /** The template's Environment.Variables, intrinsics resolved to the local resources. */
  environment: Record<string, string>;
  layers: string[];
  assetDirectory: string;
  /** Every statement of the policies attached to the function's role. */
  statements: PolicyStatement[];
  /** The role's own credentials, as Lambda hands them to the function (unique per function). */
  credentials: Credentials;
}

/** The statements of a role: its inline policies and every AWS::IAM::Policy attached to it. */
export function roleStatements(deployment: LocalDeployment, roleId: string): PolicyStatement[] {
  const inline = (
    (deployment.properties(roleId).Policies ?? []) as { PolicyDocument: unknown }[]
  ).map((policy) => policy.PolicyDocument);
  const attached = deployment
    .resourcesOf('AWS::IAM::Policy')
    .filter((policyId) =>
      ((deployment.properties(policyId).Roles ?? []) as unknown[]).some(
        (role) => JSON.stringify(role) === JSON.stringify({ Ref: roleId }),
      ),
    )
    .map((policyId) => deployment.properties(policyId).PolicyDocument);
  return [...inline, ...attached].flatMap(
    (document) => (deployment.resolve(document) as { Statement: PolicyStatement[] }).Statement,
  );
}

export function deployedFunctions(
  deployment: LocalDeployment,
  stack: SynthesizedStack,
): DeployedFunction[] {
  // CDK's BucketDeployment handler (Python) copies the dashboard's files during a deploy; it is
  // no function of the service. The dashboard's files are checked on their own.
  const serviceFunctions = deployment
    .resourcesOf('AWS::Lambda::Function')
    .filter((logicalId) => !logicalId.startsWith('CustomCDKBucketDeployment'));
  return serviceFunctions.map((logicalId) => {
    const properties = deployment.properties(logicalId);
    const roleId = (properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
    const environment = deployment.resolve(
      (properties.Environment as { Variables?: unknown } | undefined)?.Variables ?? {},
    ) as Record<string, unknown>;
    return {
      logicalId,
      name: deployment.ref(logicalId),
      arn: deployment.attribute(logicalId, 'Arn'),
      handler: String(properties.Handler),
      runtime: String(properties.Runtime),
      architecture: String((properties.Architectures as string[] | undefined)?.[0] ?? 'x86_64'),
      memorySize: Number(properties.MemorySize ?? 128),
      timeoutSeconds: Number(properties.Timeout ?? 3),
      environment: Object.fromEntries(
        Object.entries(environment).map(([name, value]) => [name, String(value)]),
      ),
      layers: (deployment.resolve(properties.Layers ?? []) as unknown[]).map(String),
      assetDirectory: stack.assetDirectory(logicalId),
      statements: roleStatements(deployment, roleId),
      credentials: {
        accessKeyId: `ASIA${randomBytes(8).toString('hex').toUpperCase()}`,
        secretAccessKey: randomBytes(20).toString('base64'),
        sessionToken: randomBytes(32).toString('base64url'),
      },
    };
  });
}
