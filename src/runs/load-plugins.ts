/**
 * `--plugin <module>`: imports user modules that register tasks and charts, into fresh registries for one command.
 *
 * @packageDocumentation
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { createTaskRegistry } from '../benchmarking/task-registry.js';
import { DantinoxError, errorText } from '../errors.js';
import { messages } from '../messages.js';
import type { DantinoxPlugin, PluginRegistries } from '../plugin.js';
import { createChartRegistry } from '../visualization/chart-registry.js';

/** How long a plugin may take to load (its import, then its default function) by default: 30 s. */
export const DEFAULT_PLUGIN_TIMEOUT_MS = 30_000;

/** Options of {@link loadPlugins}. */
export interface LoadPluginsOptions {
  /**
   * The most a plugin may take to import, and then to run its default function, in milliseconds.
   * @default {@link DEFAULT_PLUGIN_TIMEOUT_MS}
   */
  readonly timeoutMs?: number;
}

/** The conditions a plugin is resolved with, as `import()` of a package would: the ESM entry. */
const CONDITIONS = new Set(['node', 'import', 'default']);

/** The first target of a package.json `exports` value that `import` resolves to (conditions in the file's order). */
function exportsTarget(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map(exportsTarget).find((t) => t !== undefined);
  if (value === null || typeof value !== 'object') return undefined;
  for (const [key, inner] of Object.entries(value))
    if (CONDITIONS.has(key)) {
      const target = exportsTarget(inner);
      if (target !== undefined) return target;
    }
  return undefined;
}

/**
 * The file `import(spec)` would load for an installed package found from `cwd`, resolved through its
 * package.json `exports` with the `import` condition (so an ESM-only package, whose `exports` has no `require`
 * entry, resolves too); `undefined` when the package is not installed or has no `exports`.
 */
function packageEntry(spec: string, cwd: string): string | undefined {
  const parts = spec.split('/');
  const name = spec.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? spec);
  const subpath = `.${spec.slice(name.length)}`;
  const require = createRequire(join(cwd, 'noop.js'));
  for (const dir of require.resolve.paths(spec) ?? []) {
    const manifest = join(dir, name, 'package.json');
    if (!existsSync(manifest)) continue;
    const { exports } = JSON.parse(readFileSync(manifest, 'utf8')) as { exports?: unknown };
    if (exports === undefined) return undefined;
    const keyed =
      exports !== null && typeof exports === 'object' && Object.keys(exports).some((k) => k.startsWith('.'));
    const target = exportsTarget(
      keyed ? (exports as Record<string, unknown>)[subpath] : subpath === '.' ? exports : undefined,
    );
    return target === undefined ? undefined : resolve(dirname(manifest), target);
  }
  return undefined;
}

/** The URL to import for `spec`: a path (relative to `cwd`) when one exists or it looks like one, else a package. */
function moduleUrl(spec: string, cwd: string): string {
  const path = isAbsolute(spec) ? spec : resolve(cwd, spec);
  if (existsSync(path) || spec.startsWith('.') || isAbsolute(spec)) return pathToFileURL(path).href;
  return pathToFileURL(packageEntry(spec, cwd) ?? createRequire(join(cwd, 'noop.js')).resolve(spec)).href;
}

/** The first line of an error's message: a plugin's failure is reported on one line. */
const firstLine = (error: unknown): string => errorText(error).split('\n')[0] ?? '';

/**
 * Imports `url` once in a worker thread, which can be stopped even in an endless loop: `settled` when the import
 * ends (loaded or failed: the command's own import reports which), `unsettled` when the worker's event loop ran
 * empty with the import still pending (a top-level await on a promise nothing will settle), `timeout` when it
 * took longer than `timeoutMs`. Its output is discarded: the command's import prints it.
 */
function probeImport(url: string, timeoutMs: number): Promise<'settled' | 'unsettled' | 'timeout'> {
  const worker = new Worker(
    `const done = () => require('node:worker_threads').parentPort.postMessage(0);
     import(${JSON.stringify(url)}).then(done, done);`,
    { eval: true, stdout: true, stderr: true },
  );
  worker.stdout.resume();
  worker.stderr.resume();
  return new Promise((settle) => {
    const end = (outcome: 'settled' | 'unsettled' | 'timeout'): void => {
      clearTimeout(timer);
      worker.removeAllListeners();
      worker.on('error', () => {});
      void worker.terminate();
      settle(outcome);
    };
    const timer = setTimeout(() => end('timeout'), timeoutMs);
    worker.on('message', () => end('settled'));
    worker.on('error', () => end('settled'));
    worker.on('exit', () => end('unsettled'));
  });
}

/** What {@link withTimeout} resolves to when the time ran out. */
const TIMED_OUT: unique symbol = Symbol('timed out');

/** `work`'s value, or {@link TIMED_OUT} after `timeoutMs`; the live timer also keeps Node from exiting (code 13). */
async function withTimeout<T>(work: Promise<T>, timeoutMs: number): Promise<T | typeof TIMED_OUT> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<typeof TIMED_OUT>((settle) => {
    timer = setTimeout(() => settle(TIMED_OUT), timeoutMs);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Fresh task and chart registries (built-ins first) with every plugin in `specs` applied, in order. A plugin is
 * a module whose default export is a {@link DantinoxPlugin}. Each module is first imported in a worker thread,
 * bounded by `options.timeoutMs`, so a plugin whose top level never finishes (an endless loop, a wait on
 * something that never comes, a top-level await on a promise nothing settles) is refused instead of hanging the
 * command; its top level therefore runs twice (in the worker, then in the command) and should only define
 * things. A package name resolves as `import()` would resolve it, through `exports`' `import` condition.
 *
 * @throws {@link dantinox!DantinoxError} `UNKNOWN_PLUGIN` when a plugin cannot be imported, does not finish
 * loading or registering within the bound, has no default function or throws; `DUPLICATE_PLUGIN` when it
 * registers a name that is taken. The message names the plugin, on one line.
 */
export async function loadPlugins(
  specs: readonly string[],
  cwd: string,
  options: LoadPluginsOptions = {},
): Promise<PluginRegistries> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_PLUGIN_TIMEOUT_MS;
  const registries: PluginRegistries = { tasks: createTaskRegistry(), charts: createChartRegistry() };
  for (const spec of specs) {
    let plugin: unknown;
    try {
      const url = moduleUrl(spec, cwd);
      const probe = await probeImport(url, timeoutMs);
      if (probe === 'timeout')
        throw new DantinoxError('UNKNOWN_PLUGIN', messages.pluginTimedOut(spec, timeoutMs, 'import'));
      if (probe === 'unsettled') throw new DantinoxError('UNKNOWN_PLUGIN', messages.pluginUnsettled(spec));
      plugin = ((await import(url)) as { default?: unknown }).default;
    } catch (cause) {
      if (cause instanceof DantinoxError) throw cause;
      throw new DantinoxError('UNKNOWN_PLUGIN', messages.pluginLoadFailed(spec, firstLine(cause)), { cause });
    }
    if (typeof plugin !== 'function')
      throw new DantinoxError('UNKNOWN_PLUGIN', messages.pluginNotAFunction(spec, typeof plugin));
    let outcome: unknown;
    try {
      outcome = await withTimeout(Promise.resolve((plugin as DantinoxPlugin)(registries)), timeoutMs);
    } catch (cause) {
      const code = cause instanceof DantinoxError ? cause.code : 'UNKNOWN_PLUGIN';
      throw new DantinoxError(code, messages.pluginFailed(spec, firstLine(cause)), { cause });
    }
    if (outcome === TIMED_OUT)
      throw new DantinoxError('UNKNOWN_PLUGIN', messages.pluginTimedOut(spec, timeoutMs, 'register'));
  }
  return registries;
}
