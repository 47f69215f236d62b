import { describe, expect, it } from 'vitest';
import { BenchmarkSuite } from '../../src/benchmarking/suite.js';
import type { BenchmarkResult, BenchmarkTask, FailedResult } from '../../src/benchmarking/task.js';
import {
  builtinTasks,
  createTaskRegistry,
  DEFAULT_TASKS,
  type TaskFactory,
} from '../../src/benchmarking/task-registry.js';
import { PerplexityTask } from '../../src/benchmarking/tasks/perplexity-task.js';
import { DantinoxError } from '../../src/errors.js';
import { messages } from '../../src/messages.js';

class Score implements BenchmarkTask {
  constructor(readonly name = 'score') {}
  async run(): Promise<BenchmarkResult> {
    return { task: this.name, metrics: { score: 1 } };
  }
}

describe('TaskRegistry', () => {
  it('starts with the built-in tasks (the default ones first, then kld and choice), or empty', () => {
    expect(createTaskRegistry().names()).toEqual(['throughput', 'latency', 'perplexity', 'kld', 'choice']);
    expect(DEFAULT_TASKS).toEqual(['throughput', 'latency', 'perplexity']);
    expect(Object.keys(builtinTasks)).toEqual([...DEFAULT_TASKS, 'kld', 'choice']);
    expect(createTaskRegistry({ builtins: false }).names()).toEqual([]);
    expect(String(BenchmarkSuite.default())).toBe(
      "BenchmarkSuite(tasks=['throughput', 'latency', 'perplexity'])",
    );
  });

  it('creates fresh tasks by name, in the order asked, passing --data to perplexity', () => {
    const registry = createTaskRegistry();
    registry.register('score', () => new Score());
    const tasks = registry.create(['score', 'perplexity'], { data: { text: 'abc', name: 'inline' } });
    expect(tasks.map((t) => t.name)).toEqual(['score', 'perplexity']);
    expect(tasks[1]).toBeInstanceOf(PerplexityTask);
    expect(registry.create(['score'])[0]).not.toBe(tasks[0]);
  });

  it('refuses duplicates (unless override), unknown names with a did-you-mean, bad lists and bad factories', () => {
    const registry = createTaskRegistry();
    expect(() => registry.register('latency', () => new Score('latency'))).toThrow(
      new DantinoxError('DUPLICATE_PLUGIN', messages.duplicatePlugin('task', 'latency')),
    );
    registry.register('latency', () => new Score('latency'), { override: true });
    expect(registry.create(['latency'])[0]).toBeInstanceOf(Score);
    expect(() => registry.get('latncy')).toThrow(
      new DantinoxError('UNKNOWN_PLUGIN', messages.unknownName('task', 'latncy', registry.names())),
    );
    expect(messages.unknownName('task', 'latncy', registry.names())).toContain('Did you mean "latency"?');
    for (const bad of [[], ['latency', 'latency']]) {
      expect(() => registry.check(bad)).toThrow(
        new DantinoxError('INVALID_OPTION', messages.badTaskList(bad.join(','), registry.names())),
      );
    }
    expect(() => registry.register('', () => new Score())).toThrow(
      new DantinoxError('INVALID_OPTION', messages.notATaskFactory('')),
    );
    registry.register('misnamed', () => new Score('other'));
    expect(() => registry.create(['misnamed'])).toThrow(messages.badTaskFactory('misnamed', 'other'));
    registry.register('nothing', (() => undefined) as unknown as TaskFactory);
    expect(() => registry.create(['nothing'])).toThrow(messages.badTaskFactory('nothing', undefined));
  });

  it('BenchmarkResult is a union on status: a failed or skipped row always carries its error', () => {
    const failed: FailedResult = { task: 't', status: 'failed', error: 'boom', metrics: {} };
    const row: BenchmarkResult = failed;
    if (row.status === 'failed') expect(row.error.length).toBe(4); // `error` is a string here, not optional
    // @ts-expect-error a failed result without its error does not type-check
    const missing: BenchmarkResult = { task: 't', status: 'failed', metrics: {} };
    // @ts-expect-error a completed result has no error
    const both: BenchmarkResult = { task: 't', status: 'completed', error: 'x', metrics: {} };
    expect([missing.task, both.task]).toEqual(['t', 't']);
  });
});
