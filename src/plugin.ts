/**
 * The shape of a dantinox plugin: a module whose default export is a function that registers tasks and/or
 * charts. `dantinox bench --plugin ./my-plugin.js` (and `plot` / `report`) imports it before anything runs.
 *
 * @packageDocumentation
 */
import type { TaskRegistry } from './benchmarking/task-registry.js';
import type { ChartRegistry } from './visualization/chart-registry.js';

/** The registries a plugin adds to: the command's tasks (for `--tasks`) and charts (for `--charts` and outputs). */
export interface PluginRegistries {
  /** Task factories by name; `register(name, factory)`. */
  readonly tasks: TaskRegistry;
  /** Chart classes by name; `register(ChartClass)`. */
  readonly charts: ChartRegistry;
}

/**
 * What a plugin module exports as `default`: called once with the registries, awaited.
 *
 * @example
 * ```ts
 * // my-plugin.ts, compiled to my-plugin.js; run: dantinox bench --plugin ./my-plugin.js --tasks throughput,gen_speed
 * import type { DantinoxPlugin } from 'dantinox';
 * const plugin: DantinoxPlugin = ({ tasks, charts }) => {
 *   tasks.register('gen_speed', () => new GenerationSpeedTask());
 *   charts.register(TokensPerParamChart);
 * };
 * export default plugin;
 * ```
 */
export type DantinoxPlugin = (registries: PluginRegistries) => void | Promise<void>;
