/**
 * Task registries: name → factory, like the chart registry. Registries are instances (never a module-global map)
 * that start with the four built-in tasks; the CLI's `--tasks` and `--plugin` read and extend one.
 *
 * @packageDocumentation
 */
import { DantinoxError } from '../errors.js';
import { messages } from '../messages.js';
import { type RegisterOptions, Registry } from '../registry.js';
import type { BenchmarkTask } from './task.js';
import { ChoiceTask } from './tasks/choice-task.js';
import type { PerplexityData } from './tasks/eval-windows.js';
import { KldTask } from './tasks/kld-task.js';
import { LatencyTask } from './tasks/latency-task.js';
import { PerplexityTask } from './tasks/perplexity-task.js';
import { ThroughputTask } from './tasks/throughput-task.js';
import type { KldReference } from './tasks/with-reference.js';

/** What a task factory receives (from the command line: `--data`). */
export interface TaskFactoryInput {
  /** Validation text for perplexity-like tasks (a file path or inline text); absent for the built-in text. */
  readonly data?: PerplexityData;
  /** The kld and choice tasks' reference model (a model, or a factory called when the task runs). */
  readonly reference?: KldReference;
}

/** Makes a fresh task; called once per run. */
export type TaskFactory = (input: TaskFactoryInput) => BenchmarkTask;

/** The built-in tasks by name, in the seed's default order. */
export const builtinTasks = {
  /** Forward throughput over the sequence-length and batch-size sweeps ({@link ThroughputTask}). */
  throughput: () => new ThroughputTask(),
  /** Prefill, KV-cache decode and generation latency: TTFT, TPOT, end to end ({@link LatencyTask}). */
  latency: () => new LatencyTask(),
  /** Perplexity on `--data`, else the Brown corpus ({@link PerplexityTask}). */
  perplexity: (input: TaskFactoryInput) =>
    new PerplexityTask(input.data === undefined ? {} : { dataSource: input.data }),
  /** KL divergence from a reference model, in nats per token ({@link KldTask}). */
  kld: (input: TaskFactoryInput) =>
    new KldTask({
      reference:
        input.reference ??
        ((model) =>
          Promise.reject(new DantinoxError('INVALID_INPUT', messages.kldNoReference(model.info.name)))),
      ...(input.data === undefined ? {} : { dataSource: input.data }),
    }),
  /**
   * Multiple-choice log-likelihood accuracy on held-out sentences, with McNemar's test against the reference when
   * there is one ({@link ChoiceTask}).
   */
  choice: (input: TaskFactoryInput) =>
    new ChoiceTask({
      ...(input.reference === undefined ? {} : { reference: input.reference }),
      ...(input.data === undefined ? {} : { dataSource: input.data }),
    }),
} as const satisfies Record<string, TaskFactory>;

/** Name of a built-in task. */
export type BuiltinTaskName = keyof typeof builtinTasks;

/** The tasks a run has by default: the seed's `BenchmarkSuite.default()`. */
export const DEFAULT_TASKS: readonly BuiltinTaskName[] = Object.freeze([
  'throughput',
  'latency',
  'perplexity',
]);

/** Options of {@link TaskRegistry.register}. */
export type RegisterTaskOptions = RegisterOptions;

/**
 * A set of task factories by name. Create one with {@link createTaskRegistry}; registries are independent.
 *
 * @example
 * ```ts
 * const tasks = createTaskRegistry();
 * tasks.register('generation_speed', () => new GenerationSpeedTask());
 * const suite = new BenchmarkSuite({ tasks: tasks.create(['throughput', 'generation_speed']) });
 * ```
 */
export class TaskRegistry extends Registry<TaskFactory> {
  constructor() {
    super('task');
  }

  /**
   * Registers `factory` under `name`.
   *
   * @throws {@link dantinox!DantinoxError} `DUPLICATE_PLUGIN` when the name is taken and `override` is not set;
   * `INVALID_OPTION` when `name` is empty or `factory` is not a function.
   */
  register(name: string, factory: TaskFactory, options: RegisterTaskOptions = {}): void {
    if (typeof name !== 'string' || name.trim() === '' || typeof factory !== 'function')
      throw new DantinoxError('INVALID_OPTION', messages.notATaskFactory(String(name)));
    this.add(name, factory, options);
  }

  /**
   * Checks a task list without creating anything: at least one name, each registered, none twice.
   *
   * @throws {@link dantinox!DantinoxError} `INVALID_OPTION` for an empty list or a repeated name, `UNKNOWN_PLUGIN` for an
   * unknown name (with a did-you-mean).
   */
  check(names: readonly string[]): void {
    if (names.length === 0 || new Set(names).size !== names.length)
      throw new DantinoxError('INVALID_OPTION', messages.badTaskList(names.join(','), this.names()));
    for (const name of names) this.get(name);
  }

  /**
   * Creates the tasks named in `names`, in order (checked as by {@link TaskRegistry.check}).
   *
   * @throws {@link dantinox!DantinoxError} as {@link TaskRegistry.check}, and `INVALID_OPTION` when a factory returns
   * something that is not a task (no `run` function) or a task whose `name` differs from its registered name.
   */
  create(names: readonly string[], input: TaskFactoryInput = {}): BenchmarkTask[] {
    this.check(names);
    return names.map((name) => {
      const task = this.get(name)(input);
      if (typeof task?.run !== 'function' || task.name !== name)
        throw new DantinoxError('INVALID_OPTION', messages.badTaskFactory(name, task?.name));
      return task;
    });
  }
}

/** Options of {@link createTaskRegistry}. */
export interface CreateTaskRegistryOptions {
  /** Start with the four built-in tasks. @default true */
  readonly builtins?: boolean;
}

/** A new, independent registry holding the built-in tasks (unless `builtins: false`). */
export function createTaskRegistry(options: CreateTaskRegistryOptions = {}): TaskRegistry {
  const registry = new TaskRegistry();
  if (options.builtins !== false)
    for (const [name, factory] of Object.entries(builtinTasks)) registry.register(name, factory);
  return registry;
}
