/**
 * The stacks of a stage read as one template: every resource and output of every stack, with the
 * references between stacks (`Fn::ImportValue` of an export, `Fn::GetStackOutput` of an output)
 * replaced by the value the producing stack outputs. What CloudFormation resolves at deploy time
 * is then resolved here, so a test can follow a reference from a function to the table it reads
 * across stacks as it would within one. Logical ids are unique across the stage's stacks (checked
 * here; CDK's own metadata resource, in every stack, is left out).
 */

export interface StackTemplate {
  Resources: Record<string, { Type: string }>;
  Outputs?: Record<string, { Value: unknown; Export?: { Name: unknown } }>;
  Mappings?: Record<string, unknown>;
}

export function mergedTemplate<T extends StackTemplate>(stacks: Record<string, T>): T {
  const resources: Record<string, { Type: string }> = {};
  const outputs: NonNullable<StackTemplate['Outputs']> = {};
  const exports = new Map<string, unknown>();
  const stackOutputs = new Map<string, unknown>();
  const mappings: Record<string, unknown> = {};
  for (const [stackName, template] of Object.entries(stacks)) {
    for (const [id, resource] of Object.entries(template.Resources)) {
      if (resource.Type === 'AWS::CDK::Metadata') continue;
      if (id in resources) throw new Error(`${id} is in ${stackName} and in another stack`);
      resources[id] = resource;
    }
    for (const [name, output] of Object.entries(template.Outputs ?? {})) {
      stackOutputs.set(`${stackName}/${name}`, output.Value);
      if (typeof output.Export?.Name === 'string') exports.set(output.Export.Name, output.Value);
      outputs[name] = output;
    }
    Object.assign(mappings, template.Mappings ?? {});
  }
  const resolve = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(resolve);
    if (value === null || typeof value !== 'object') return value;
    const entries = Object.entries(value);
    if (entries.length === 1) {
      const [[name, argument]] = entries as [[string, unknown]];
      if (name === 'Fn::ImportValue') {
        const exported = exports.get(String(argument));
        if (exported === undefined) throw new Error(`No stack exports ${String(argument)}`);
        return resolve(exported);
      }
      if (name === 'Fn::GetStackOutput') {
        const { StackName, OutputName } = argument as { StackName: string; OutputName: string };
        const output = stackOutputs.get(`${StackName}/${OutputName}`);
        if (output === undefined) throw new Error(`${StackName} has no output ${OutputName}`);
        return resolve(output);
      }
    }
    return Object.fromEntries(entries.map(([key, item]) => [key, resolve(item)]));
  };
  return {
    Resources: resolve(resources),
    Outputs: resolve(outputs),
    Mappings: mappings,
  } as T;
}
