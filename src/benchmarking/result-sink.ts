/**
 * `ResultSink`: where a suite run's results go. A sink is an object of optional hooks, called in order as the run
 * progresses: {@link ResultSink.onStart} once, {@link ResultSink.onCell} per finished measurement cell,
 * {@link ResultSink.onTask} per finished task, {@link ResultSink.onEnd} once with the report. The JSONL stream and
 * the CSV/JSON report files are sinks too. A sink that throws is reported to the run's logger and the run goes
 * on: an output can never lose a measurement.
 *
 * @packageDocumentation
 */
import { messages } from '../messages.js';
import type { Environment } from './environment.js';
import type { Logger } from './logger.js';
import type { SuiteReport } from './report.js';
import type { BenchmarkResult, CellRecord, MetaValue, MetricDescriptor } from './task.js';

/** A value or a promise of it. */
export type Awaitable<T> = T | Promise<T>;

/** What is known when a run starts (also the first line of its JSONL stream). */
export interface RunStart {
  /** Id of the run (the `run_id` column). */
  readonly runId: string;
  /** Task names, in run order. */
  readonly tasks: readonly string[];
  /** Model identity columns (snake_case). */
  readonly modelMeta: Readonly<Record<string, MetaValue>>;
  /** Where and how it is measured. */
  readonly environment: Environment;
  /** Metric descriptors declared by the run's tasks. */
  readonly descriptors: readonly MetricDescriptor[];
}

/** How a run ended. */
export interface RunEnd {
  /** Whether the run's abort signal stopped it. */
  readonly aborted: boolean;
}

/**
 * Receives a suite run's results as they appear. Every hook is optional and awaited in order, sink after sink;
 * one that throws (or rejects) is logged as an error and the run goes on.
 *
 * @example
 * ```ts
 * const slowCells: ResultSink = {
 *   name: 'slow cells',
 *   onCell: (cell) => {
 *     if ((cell.metrics['p99_ms'] ?? 0) > 100) console.warn(`${cell.task} ${cell.cell} is slow`);
 *   },
 * };
 * await suite.run(paradigm, model, { sinks: [slowCells] });
 * ```
 */
export interface ResultSink {
  /** Name used when the sink's failure is reported. @default its position, e.g. `sink #2` */
  readonly name?: string;
  /** Before the first task. */
  onStart?(run: RunStart): Awaitable<void>;
  /** A measurement cell finished (completed, failed or skipped); `elapsedS` is the wall time since the start. */
  onCell?(cell: CellRecord, elapsedS: number): Awaitable<void>;
  /** A task finished: its row, with `cells` holding every cell it recorded. */
  onTask?(result: BenchmarkResult): Awaitable<void>;
  /** The run ended (normally or by abort), with its report. */
  onEnd?(report: SuiteReport, end: RunEnd): Awaitable<void>;
}

/** The hooks of {@link ResultSink}, every one present. */
type SinkHooks = Required<Omit<ResultSink, 'name'>>;

/** The arguments of hook `K` of `T` (an optional method). */
type HookArgs<T, K extends keyof T> = T[K] extends ((...args: infer A) => unknown) | undefined ? A : never;

/**
 * A function that calls hook `hook` of every object of `targets` in order, awaiting each: one that throws (or
 * rejects) is logged at `error` level through `logger`, with its name (or `<kind> #<position>`), and the next
 * still runs. Shared by result sinks and run hooks.
 */
export function hookCaller<T extends { readonly name?: string }>(
  targets: readonly T[],
  logger: Logger,
  kind: 'sink' | 'hook',
): <K extends keyof T>(hook: K, ...args: HookArgs<T, K>) => Promise<void> {
  return async (hook, ...args) => {
    for (const [i, target] of targets.entries()) {
      const fn = target[hook];
      if (typeof fn !== 'function') continue;
      try {
        await fn.apply(target, args);
      } catch (cause) {
        logger.log(
          'error',
          messages.sinkFailed(kind, target.name ?? `${kind} #${i + 1}`, String(hook), cause),
        );
      }
    }
  };
}

/** Every hook of `T` (its optional `on…` methods, not `name`) as a function that calls it on every target. */
export type HookCalls<T> = {
  readonly [K in Exclude<keyof T, 'name'>]-?: (...args: HookArgs<T, K>) => Promise<void>;
};

/**
 * One object whose every hook calls that hook of each of `hooks` (one object of optional hooks, or several) in
 * order, awaiting each; one that throws is logged at `error` level through `logger` and the next still runs. `names`
 * lists every hook of `T` (typed so that none can be left out).
 */
export function fanOutHooks<T extends { readonly name?: string }>(
  hooks: T | readonly T[] | undefined,
  logger: Logger,
  names: { readonly [K in Exclude<keyof T, 'name'>]-?: true },
): HookCalls<T> {
  const list = (hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks]) as readonly T[];
  const call = hookCaller(list, logger, 'hook');
  const calls: Record<string, unknown> = {};
  for (const name of Object.keys(names) as Exclude<keyof T, 'name'>[])
    calls[name as string] = (...args: HookArgs<T, typeof name>) => call(name, ...args);
  return calls as HookCalls<T>;
}

/**
 * One sink that forwards every hook to `sinks` in order and never throws: a failing sink is logged at `error`
 * level through `logger` (with its name and the hook) and the next sink still runs.
 */
export function fanOutSinks(sinks: readonly ResultSink[], logger: Logger): SinkHooks {
  const call = hookCaller(sinks, logger, 'sink');
  return {
    onStart: (run) => call('onStart', run),
    onCell: (cell, elapsedS) => call('onCell', cell, elapsedS),
    onTask: (result) => call('onTask', result),
    onEnd: (report, end) => call('onEnd', report, end),
  };
}
