import { Session } from 'node:inspector/promises';
import { round } from './report.js';

/**
 * Where the CPU of one path goes: a V8 sampling profile of a pass of its own (the figures of the
 * other sections come from passes without the profiler), summarised as the share of samples
 * spent in each part of the stack (self time) and in the heaviest frames.
 */

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

export interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface Share {
  name: string;
  /** Percent of the busy samples (idle left out). */
  percent: number;
}

export interface ProfileSummary {
  /** Busy milliseconds sampled. */
  busyMs: number;
  parts: Share[];
  frames: Share[];
}

/** Samples every 100 µs: a few hundred requests give thousands of samples. */
const samplingIntervalUs = 100;

/** The V8 profiler of this process, through the inspector. */
export class Profiler {
  private readonly session = new Session();

  async start(): Promise<void> {
    this.session.connect();
    await this.session.post('Profiler.enable');
    await this.session.post('Profiler.setSamplingInterval', { interval: samplingIntervalUs });
    await this.session.post('Profiler.start');
  }

  async stop(): Promise<CpuProfile> {
    const { profile } = await this.session.post('Profiler.stop');
    this.session.disconnect();
    return profile as unknown as CpuProfile;
  }
}

const nodeGroups: [RegExp, string][] = [
  [
    /^node:(_http_|http|https|net|_tls|tls|internal\/(streams|stream_base|tls|http|net))/,
    'node:http, TLS and streams',
  ],
  [/^node:internal\/crypto|^node:crypto/, 'node:crypto'],
  [/^node:/, 'node: other'],
];

/** The part of the stack a frame belongs to, from its script. */
function partOf(url: string, functionName: string): string | undefined {
  if (functionName === '(idle)') return undefined;
  if (functionName === '(garbage collector)') return 'garbage collection';
  if (functionName === '(program)' || functionName === '(root)') return 'V8 (program)';
  if (url === '') {
    // Native frames: socket syscalls are what they mostly are on these paths.
    return /^(writev|writeBuffer|writeUtf8String|read|readStart|close)$/.test(functionName)
      ? 'socket syscalls'
      : `native (${functionName})`;
  }
  const dependency = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1];
  if (dependency !== undefined) {
    return /^@(aws-sdk|smithy)\//.test(dependency) ? 'AWS SDK' : dependency;
  }
  for (const [pattern, name] of nodeGroups) if (pattern.test(url)) return name;
  const own = /\/(shared\/(adapters|domain|http|local)|functions|bench)\//.exec(url);
  if (own !== null) {
    const area = own[1]!;
    return area.startsWith('shared/local')
      ? 'local runtime'
      : area === 'bench'
        ? 'bench client'
        : `service: ${area.replace('shared/', '')}`;
  }
  return 'other';
}

const frameName = (node: ProfileNode) => {
  const { functionName, url, lineNumber } = node.callFrame;
  const file = url
    .replace(/^.*node_modules\//, '')
    .replace(/^file:\/\/.*?\/(shared|functions|bench)\//, '$1/');
  return `${functionName || '(anonymous)'} ${file === '' ? '' : `${file}:${lineNumber + 1}`}`.trim();
};

function top(totals: Map<string, number>, busy: number, count: number): Share[] {
  return [...totals]
    .sort(([, a], [, b]) => b - a)
    .slice(0, count)
    .map(([name, time]) => ({ name, percent: round((time / busy) * 100, 1) }));
}

/**
 * Self time by part of the stack and by frame, over any number of profiles of one path (one per
 * request, or one of a whole phase).
 */
export class ProfileTally {
  private readonly parts = new Map<string, number>();
  private readonly frames = new Map<string, number>();
  private busy = 0;

  add(profile: CpuProfile): void {
    const byId = new Map(profile.nodes.map((node) => [node.id, node]));
    // The inspector's own work (starting and stopping this profiler, building the profile) is
    // sampled too: everything under its `post` is the profiler's cost, not the path's.
    const profilerOwn = new Set<number>();
    const mark = (node: ProfileNode, own: boolean) => {
      const isOwn = own || node.callFrame.url === 'node:inspector';
      if (isOwn) profilerOwn.add(node.id);
      for (const child of node.children ?? []) {
        const next = byId.get(child);
        if (next !== undefined) mark(next, isOwn);
      }
    };
    const root = profile.nodes[0];
    if (root !== undefined) mark(root, false);
    profile.samples.forEach((id, index) => {
      const node = byId.get(id);
      const time = profile.timeDeltas[index] ?? 0;
      if (node === undefined || profilerOwn.has(id)) return;
      const part = partOf(node.callFrame.url, node.callFrame.functionName);
      if (part === undefined) return;
      this.busy += time;
      this.parts.set(part, (this.parts.get(part) ?? 0) + time);
      const frame = frameName(node);
      this.frames.set(frame, (this.frames.get(frame) ?? 0) + time);
    });
  }

  get empty(): boolean {
    return this.busy === 0;
  }

  summary(count = 8): ProfileSummary {
    return {
      busyMs: round(this.busy / 1000, 1),
      parts: top(this.parts, this.busy, count),
      frames: top(this.frames, this.busy, count),
    };
  }
}

/** "AWS SDK 31 %, socket syscalls 22 %, …" */
export const describeShares = (shares: Share[]): string =>
  shares.map((share) => `${share.name} ${share.percent} %`).join(', ');
