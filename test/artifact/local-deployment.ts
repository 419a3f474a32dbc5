import { randomBytes } from 'node:crypto';
import type { Template } from './synthesize-stack.js';

/** What a resource is once "deployed" here: its Ref and its Fn::GetAtt attributes. */
interface Physical {
  ref: string;
  attributes: Record<string, string>;
}

export interface LocalDeploymentOptions {
  stackName: string;
  region: string;
  account: string;
  /** Where queue URLs point (the AWS stand-in), as SQS queue URLs name their host. */
  awsEndpoint: string;
}

/**
 * The stack's resources placed on local stand-ins: each resource gets a physical name or id the
 * way CloudFormation would give it one, and `resolve` turns the template's intrinsics
 * (Ref, Fn::GetAtt, Fn::Join, Fn::Sub, …) into the values a deployed function would see. What it
 * cannot resolve fails loudly: a guessed value would test something else.
 */
export class LocalDeployment {
  private readonly physical = new Map<string, Physical>();
  private readonly suffix = randomBytes(4).toString('hex');

  constructor(
    readonly template: Template,
    readonly options: LocalDeploymentOptions,
  ) {}

  get region(): string {
    return this.options.region;
  }

  get account(): string {
    return this.options.account;
  }

  /** The logical ids of the resources of one type. */
  resourcesOf(type: string): string[] {
    return Object.entries(this.template.Resources)
      .filter(([, resource]) => resource.Type === type)
      .map(([id]) => id);
  }

  properties(logicalId: string): Record<string, unknown> {
    const resource = this.template.Resources[logicalId];
    if (resource === undefined) throw new Error(`No resource ${logicalId} in the template`);
    return resource.Properties ?? {};
  }

  ref(logicalId: string): string {
    return this.physicalOf(logicalId).ref;
  }

  attribute(logicalId: string, name: string): string {
    const value = this.physicalOf(logicalId).attributes[name];
    if (value === undefined) throw new Error(`No attribute ${name} of ${logicalId} here`);
    return value;
  }

  /** The logical id whose Ref or Arn is `value`, if any. */
  logicalIdOf(value: string): string | undefined {
    return Object.keys(this.template.Resources).find((id) => {
      const physical = this.physicalOf(id, false);
      return (
        physical !== undefined && (physical.ref === value || physical.attributes.Arn === value)
      );
    });
  }

  resolve(value: unknown): unknown {
    if (Array.isArray(value)) return value.map((item) => this.resolve(item));
    if (value === null || typeof value !== 'object') return value;
    const entries = Object.entries(value);
    const [first] = entries;
    if (entries.length === 1 && first !== undefined && isIntrinsic(first[0])) {
      return this.intrinsic(first[0], first[1]);
    }
    return Object.fromEntries(entries.map(([key, item]) => [key, this.resolve(item)]));
  }

  resolveString(value: unknown): string {
    const resolved = this.resolve(value);
    if (typeof resolved !== 'string' && typeof resolved !== 'number') {
      throw new Error(`Expected a string, resolved ${JSON.stringify(value)} to ${resolved}`);
    }
    return String(resolved);
  }

  private intrinsic(name: string, argument: unknown): unknown {
    switch (name) {
      case 'Ref':
        return this.pseudo(String(argument)) ?? this.ref(String(argument));
      case 'Fn::GetAtt': {
        const [id, attribute] = argument as [string, string];
        return this.attribute(id, attribute);
      }
      case 'Fn::Join': {
        const [separator, parts] = argument as [string, unknown[]];
        return parts.map((part) => this.resolveString(part)).join(separator);
      }
      case 'Fn::Select': {
        const [index, list] = argument as [number, unknown];
        return (this.resolve(list) as unknown[])[Number(index)];
      }
      case 'Fn::Split': {
        const [separator, text] = argument as [string, unknown];
        return this.resolveString(text).split(separator);
      }
      case 'Fn::FindInMap': {
        const [map, top, second] = (argument as unknown[]).map((part) => this.resolveString(part));
        const found = this.template.Mappings?.[map!]?.[top!]?.[second!];
        if (found === undefined) throw new Error(`No mapping ${map}.${top}.${second}`);
        return found;
      }
      case 'Fn::Sub': {
        const [text, variables] = (typeof argument === 'string' ? [argument, {}] : argument) as [
          string,
          Record<string, unknown>,
        ];
        return text.replace(/\$\{([^}!]+)\}/g, (_, reference: string) => {
          if (reference in variables) return this.resolveString(variables[reference]);
          const [id, attribute] = reference.split('.') as [string, string | undefined];
          if (attribute !== undefined) return this.attribute(id, attribute);
          return this.pseudo(id) ?? this.ref(id);
        });
      }
      default:
        throw new Error(`The local deployment cannot resolve ${name}`);
    }
  }

  private pseudo(name: string): string | undefined {
    const values: Record<string, string> = {
      'AWS::Region': this.region,
      'AWS::AccountId': this.account,
      'AWS::Partition': 'aws',
      'AWS::URLSuffix': 'amazonaws.com',
      'AWS::StackName': this.options.stackName,
    };
    return values[name];
  }

  private physicalOf(logicalId: string): Physical;
  private physicalOf(logicalId: string, required: false): Physical | undefined;
  private physicalOf(logicalId: string, required = true): Physical | undefined {
    let physical = this.physical.get(logicalId);
    if (physical === undefined) {
      physical = this.place(logicalId);
      if (physical !== undefined) this.physical.set(logicalId, physical);
    }
    if (physical === undefined && required) {
      const type = this.template.Resources[logicalId]?.Type ?? 'an unknown resource';
      throw new Error(`The local deployment has no stand-in for ${logicalId} (${type})`);
    }
    return physical;
  }

  /** The name CloudFormation would generate: stack, logical id and a random suffix. */
  private generatedName(logicalId: string, maxLength = 64): string {
    return `${this.options.stackName}-${logicalId}-${this.suffix}`.slice(-maxLength);
  }

  private arn(service: string, resource: string, region = this.region): string {
    return `arn:aws:${service}:${region}:${this.account}:${resource}`;
  }

  private place(logicalId: string): Physical | undefined {
    const type = this.template.Resources[logicalId]?.Type;
    const properties = this.template.Resources[logicalId]?.Properties ?? {};
    switch (type) {
      case 'AWS::DynamoDB::Table': {
        const name = this.generatedName(logicalId, 255);
        return { ref: name, attributes: { Arn: this.arn('dynamodb', `table/${name}`) } };
      }
      case 'AWS::SQS::Queue': {
        const name = this.generatedName(logicalId, 80);
        const url = `${this.options.awsEndpoint}/${this.account}/${name}`;
        return {
          ref: url,
          attributes: { Arn: this.arn('sqs', name), QueueName: name, QueueUrl: url },
        };
      }
      case 'AWS::SecretsManager::Secret': {
        // Secrets Manager appends a dash and six random characters to the name.
        const arn = this.arn('secretsmanager', `secret:${logicalId}-${this.suffix.slice(0, 6)}`);
        return { ref: arn, attributes: { Id: arn } };
      }
      case 'AWS::IAM::Role': {
        const name = this.generatedName(logicalId);
        return { ref: name, attributes: { Arn: `arn:aws:iam::${this.account}:role/${name}` } };
      }
      case 'AWS::Scheduler::ScheduleGroup': {
        const name =
          properties.Name === undefined
            ? this.generatedName(logicalId)
            : this.resolveString(properties.Name);
        return { ref: name, attributes: { Arn: this.arn('scheduler', `schedule-group/${name}`) } };
      }
      case 'AWS::SNS::Topic': {
        const arn = this.arn('sns', this.generatedName(logicalId, 256));
        return { ref: arn, attributes: { TopicArn: arn } };
      }
      case 'AWS::Lambda::Function': {
        const name = this.generatedName(logicalId);
        return { ref: name, attributes: { Arn: this.arn('lambda', `function:${name}`) } };
      }
      case 'AWS::Lambda::Alias': {
        // Its Ref is its ARN: the function's, qualified by the alias's name.
        const arn = `${this.resolveString({ 'Fn::GetAtt': [(properties.FunctionName as { Ref: string }).Ref, 'Arn'] })}:${this.resolveString(properties.Name)}`;
        return { ref: arn, attributes: { AliasArn: arn } };
      }
      case 'AWS::Logs::LogGroup': {
        const name = `/aws/lambda/${this.generatedName(logicalId)}`;
        return { ref: name, attributes: { Arn: this.arn('logs', `log-group:${name}:*`) } };
      }
      case 'AWS::ApiGateway::RestApi': {
        const id = randomBytes(5).toString('hex');
        return { ref: id, attributes: { RootResourceId: randomBytes(3).toString('hex') } };
      }
      case 'AWS::SES::ConfigurationSet':
        return { ref: this.generatedName(logicalId), attributes: {} };
      case 'AWS::ApiGateway::ApiKey':
        return { ref: randomBytes(5).toString('hex'), attributes: {} };
      case 'AWS::CloudFront::Distribution': {
        // Read by the functions that email, for the dashboard's address in their links.
        const id = `E${randomBytes(6).toString('hex').toUpperCase()}`;
        return {
          ref: id,
          attributes: { Id: id, DomainName: `d${randomBytes(6).toString('hex')}.cloudfront.net` },
        };
      }
      default:
        return undefined;
    }
  }
}

const isIntrinsic = (key: string) => key === 'Ref' || key.startsWith('Fn::');
