/**
 * `--plugin <module>`: imports user modules that register tasks and charts, into fresh registries for one command.
 *
 * @packageDocumentation
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createTaskRegistry } from '../benchmarking/task-registry.js';
import { DantinoxError, errorText } from '../errors.js';
import { messages } from '../messages.js';
import type { DantinoxPlugin, PluginRegistries } from '../plugin.js';
import { createChartRegistry } from '../visualization/chart-registry.js';

/** The URL to import for `spec`: a path (relative to `cwd`) when one exists or it looks like one, else a package. */
function moduleUrl(spec: string, cwd: string): string {
  const path = isAbsolute(spec) ? spec : resolve(cwd, spec);
  if (existsSync(path) || spec.startsWith('.') || isAbsolute(spec)) return pathToFileURL(path).href;
  return pathToFileURL(createRequire(join(cwd, 'noop.js')).resolve(spec)).href;
}

/** The first line of an error's message: a plugin's failure is reported on one line. */
const firstLine = (error: unknown): string => errorText(error).split('\n')[0] ?? '';

/**
 * Fresh task and chart registries (built-ins first) with every plugin in `specs` applied, in order. A plugin is
 * a module whose default export is a {@link DantinoxPlugin}.
 *
 * @throws {@link dantinox!DantinoxError} `UNKNOWN_PLUGIN` when a plugin cannot be imported, has no default function or
 * throws; `DUPLICATE_PLUGIN` when it registers a name that is taken. The message names the plugin, on one line.
 */
export async function loadPlugins(specs: readonly string[], cwd: string): Promise<PluginRegistries> {
  const registries: PluginRegistries = { tasks: createTaskRegistry(), charts: createChartRegistry() };
  for (const spec of specs) {
    let plugin: unknown;
    try {
      plugin = ((await import(moduleUrl(spec, cwd))) as { default?: unknown }).default;
    } catch (cause) {
      throw new DantinoxError('UNKNOWN_PLUGIN', messages.pluginLoadFailed(spec, firstLine(cause)), { cause });
    }
    if (typeof plugin !== 'function')
      throw new DantinoxError('UNKNOWN_PLUGIN', messages.pluginNotAFunction(spec, typeof plugin));
    try {
      await (plugin as DantinoxPlugin)(registries);
    } catch (cause) {
      const code = cause instanceof DantinoxError ? cause.code : 'UNKNOWN_PLUGIN';
      throw new DantinoxError(code, messages.pluginFailed(spec, firstLine(cause)), { cause });
    }
  }
  return registries;
}
