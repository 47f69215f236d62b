import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { SuiteReport } from '../../src/benchmarking/index.js';
import { messages } from '../../src/messages.js';
import { ensureBuilt, ROOT, runCli } from './built-cli.js';

/** A user plugin as a user writes it: one task and one chart, importing the installed package's visualization. */
const PLUGIN = (visualization: string): string => `
import { Chart, VEGA_LITE_SCHEMA } from '${visualization}';

class VocabTask {
  name = 'vocab_task';
  metrics = [{ key: 'vocab', unit: 'tokens', description: 'Vocabulary size of the model.' }];
  async run(paradigm, model, config, rng) {
    return { task: this.name, metrics: { vocab: model.config.vocabSize, draw: rng.int(1000) }, meta: { paradigm: paradigm.type } };
  }
}

class VocabChart extends Chart {
  static name = 'vocab_bar';
  static description = 'Vocabulary size per task row.';
  static accepts = { required: [{ anyOf: ['vocab'], label: 'vocab' }], optional: [] };
  build(rows) {
    return {
      $schema: VEGA_LITE_SCHEMA,
      data: { values: rows.map((r) => ({ task: String(r.task), vocab: r.vocab })) },
      mark: 'bar',
      encoding: { x: { field: 'task', type: 'nominal' }, y: { field: 'vocab', type: 'quantitative' } },
    };
  }
}

export default ({ tasks, charts }) => {
  tasks.register('vocab_task', () => new VocabTask());
  charts.register(VocabChart);
};
`;

let cwd: string;

beforeAll(() => {
  ensureBuilt();
  cwd = mkdtempSync(join(tmpdir(), 'dantinox-plugin-'));
  const visualization = pathToFileURL(join(ROOT, 'dist/visualization/index.js')).href;
  writeFileSync(join(cwd, 'my-plugin.mjs'), PLUGIN(visualization));
  writeFileSync(
    join(cwd, 'dup.mjs'),
    "export default ({ tasks }) => tasks.register('throughput', () => ({ name: 'throughput', run: async () => ({ task: 'throughput', metrics: {} }) }));\n",
  );
  writeFileSync(join(cwd, 'broken.mjs'), 'export default ({ tasks }) => {\n');
  writeFileSync(join(cwd, 'no-default.mjs'), 'export const plugin = () => {};\n');
  writeFileSync(join(cwd, 'unsettled.mjs'), 'await new Promise(() => {});\nexport default () => {};\n');
  const esmOnly = join(cwd, 'node_modules', 'esm-only-plugin');
  mkdirSync(esmOnly, { recursive: true });
  writeFileSync(
    join(esmOnly, 'package.json'),
    JSON.stringify({ name: 'esm-only-plugin', type: 'module', exports: { import: './index.js' } }),
  );
  writeFileSync(
    join(esmOnly, 'index.js'),
    "export default ({ tasks }) => tasks.register('esm_task', () => ({ name: 'esm_task' }));\n",
  );
}, 180_000);

describe('dantinox --plugin (real binary)', () => {
  it('bench runs a plugin task and renders a plugin chart; plot and report draw the plugin chart too', async () => {
    const bench = await runCli(
      [
        'bench',
        '--config',
        'tiny',
        '--threads',
        '1',
        '--plugin',
        './my-plugin.mjs',
        '--tasks',
        'vocab_task',
        '--out',
        'out',
      ],
      { cwd },
    );
    expect(bench.code, bench.stderr).toBe(0);
    const report = SuiteReport.load(join(cwd, 'out', 'results.json'));
    expect(report.results).toHaveLength(1);
    expect(report.results[0]).toMatchObject({
      task: 'vocab_task',
      status: 'completed',
      meta: { paradigm: 'ar' },
    });
    expect(report.results[0]?.metrics['vocab']).toBe(256);
    expect(report.descriptors).toEqual([
      { key: 'vocab', unit: 'tokens', description: 'Vocabulary size of the model.' },
    ]);
    expect(readdirSync(join(cwd, 'out', 'charts'))).toEqual(
      expect.arrayContaining(['tiny-vocab_bar.png', 'tiny-vocab_bar.svg']),
    );
    expect(bench.stdout).toContain('charts/tiny-vocab_bar.svg');

    const plot = await runCli(
      [
        'plot',
        'out',
        '--plugin',
        './my-plugin.mjs',
        '--charts',
        'vocab_bar',
        '--format',
        'svg',
        '--out',
        'plots',
      ],
      { cwd },
    );
    expect(plot.code, plot.stderr).toBe(0);
    expect(readFileSync(join(cwd, 'plots', `${report.runId}-vocab_bar.svg`), 'utf8')).toMatch(/^<svg/);
    const html = await runCli(['report', 'out', '--plugin', './my-plugin.mjs', '--charts', 'vocab_bar'], {
      cwd,
    });
    expect(html.code, html.stderr).toBe(0);
    expect(readFileSync(join(cwd, 'report.html'), 'utf8')).toContain('vocab_bar');

    // Without the plugin, its chart is unknown: a usage error that says how to add one.
    const without = await runCli(['plot', 'out', '--charts', 'vocab_bar'], { cwd });
    expect(without.code).toBe(2);
    expect(without.stderr).toContain('Unknown chart "vocab_bar".');
    expect(without.stderr).toContain(messages.addYourOwn('chart', 'examples/custom-chart.ts'));
  });

  it('a plugin that cannot load, has no default function or registers a taken name: one line, exit 2', async () => {
    const one = async (plugin: string, expected: string | RegExp): Promise<void> => {
      const r = await runCli(['bench', '--config', 'tiny', '--plugin', plugin, '--out', 'never'], { cwd });
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.split('\n')).toHaveLength(2); // one line and the final newline
      expect(r.stderr).toMatch(expected);
    };
    await one('./missing.mjs', /^error: Plugin "\.\/missing\.mjs" cannot be loaded: .*missing\.mjs/);
    await one('./broken.mjs', /^error: Plugin "\.\/broken\.mjs" cannot be loaded: /);
    await one('./no-default.mjs', `error: ${messages.pluginNotAFunction('./no-default.mjs', 'undefined')}\n`);
    await one(
      './dup.mjs',
      `error: ${messages.pluginFailed('./dup.mjs', messages.duplicatePlugin('task', 'throughput'))}\n`,
    );
    // Before, Node exited 13 in silence: the command's top-level await waited on the plugin's forever.
    await one('./unsettled.mjs', `error: ${messages.pluginUnsettled('./unsettled.mjs')}\n`);
    expect(readdirSync(cwd)).not.toContain('never'); // nothing was started
  });

  it('an ESM-only package (exports with only an "import" condition) loads by its name', async () => {
    const r = await runCli(
      ['bench', '--config', 'tiny', '--plugin', 'esm-only-plugin', '--tasks', 'nope', '--out', 'never'],
      { cwd },
    );
    expect(r.stderr).toContain('Unknown task "nope".');
    expect(r.stderr).toContain('Available: throughput, latency, perplexity, kld, choice, esm_task.');
    expect(r.code).toBe(2);
  });
});
