/**
 * `loadPlugins` bounds a plugin's loading: a module whose top level never ends (an endless loop, a wait on a timer
 * that never fires, a top-level await nothing settles) or whose default function never returns is refused with
 * one line naming it, within the bound; an ESM-only package loads by its name.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { DantinoxError } from '../../src/errors.js';
import { messages } from '../../src/messages.js';
import { loadPlugins } from '../../src/runs/load-plugins.js';

const REGISTER =
  "export default ({ tasks }) => tasks.register('probe_task', () => ({ name: 'probe_task' }));\n";
let cwd: string;

beforeAll(() => {
  cwd = mkdtempSync(join(tmpdir(), 'dantinox-load-plugins-'));
  writeFileSync(join(cwd, 'busy.mjs'), `for (;;) {}\n${REGISTER}`);
  writeFileSync(join(cwd, 'waits.mjs'), `await new Promise((r) => setTimeout(r, 2 ** 30));\n${REGISTER}`);
  writeFileSync(join(cwd, 'unsettled.mjs'), `await new Promise(() => {});\n${REGISTER}`);
  writeFileSync(join(cwd, 'never-registers.mjs'), 'export default () => new Promise(() => {});\n');
  writeFileSync(join(cwd, 'ok.mjs'), REGISTER);
  const pkg = join(cwd, 'node_modules', '@acme', 'esm-only');
  mkdirSync(join(pkg, 'lib'), { recursive: true });
  writeFileSync(
    join(pkg, 'package.json'),
    JSON.stringify({
      name: '@acme/esm-only',
      type: 'module',
      exports: { '.': { import: './lib/index.js' } },
    }),
  );
  writeFileSync(join(pkg, 'lib', 'index.js'), REGISTER);
});

/** The error `loadPlugins` throws for `spec`, and how long it took. */
async function refusal(spec: string, timeoutMs: number): Promise<{ error: DantinoxError; ms: number }> {
  const start = Date.now();
  const error = await loadPlugins([spec], cwd, { timeoutMs }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DantinoxError);
  return { error: error as DantinoxError, ms: Date.now() - start };
}

describe('loadPlugins', () => {
  it('stops a plugin whose top level loops or waits forever after the bound, naming it', async () => {
    for (const spec of ['./busy.mjs', './waits.mjs']) {
      const { error, ms } = await refusal(spec, 400);
      expect(error.code).toBe('UNKNOWN_PLUGIN');
      expect(error.message).toBe(messages.pluginTimedOut(spec, 400, 'import'));
      expect(ms).toBeGreaterThanOrEqual(400);
      expect(ms).toBeLessThan(10_000);
    }
  });

  it('names a plugin whose top-level await nothing settles, without waiting for the bound', async () => {
    const { error, ms } = await refusal('./unsettled.mjs', 60_000);
    expect(error.message).toBe(messages.pluginUnsettled('./unsettled.mjs'));
    expect(ms).toBeLessThan(30_000);
  });

  it('stops a plugin whose default function never returns', async () => {
    const { error } = await refusal('./never-registers.mjs', 300);
    expect(error.message).toBe(messages.pluginTimedOut('./never-registers.mjs', 300, 'register'));
  });

  it('loads a plugin by path and an ESM-only package (exports with only "import") by its name', async () => {
    for (const spec of ['./ok.mjs', '@acme/esm-only']) {
      const { tasks } = await loadPlugins([spec], cwd, { timeoutMs: 20_000 });
      expect(tasks.names()).toContain('probe_task');
    }
  });
});
