import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { BIN, ensureBuilt, ROOT } from '../cli/built-cli.js';

beforeAll(() => ensureBuilt(), 180_000);

interface Step {
  readonly name?: string;
  readonly run?: string;
  readonly uses?: string;
}

const doc = readFileSync(join(ROOT, 'docs/ci-github-actions.md'), 'utf8');
const yamlText = /```yaml\n([\s\S]*?)```/.exec(doc)?.[1] ?? '';
const workflow = parse(yamlText) as {
  on: unknown;
  jobs: { bench: { env: Record<string, string>; steps: Step[] } };
};

/** Every `npx dantinox …` command of the workflow's run steps, in order, with the loop unrolled. */
function dantinoxCommands(rounds: number): { cwd: string; args: string }[] {
  const out: { cwd: string; args: string }[] = [];
  for (const step of workflow.jobs.bench.steps) {
    const script = step.run ?? '';
    const lines = [...script.matchAll(/\(cd (\w+) && npx dantinox ([^)]*)\)/g)];
    const loop = script.includes('for i in');
    for (let i = 1; i <= (loop ? rounds : 1); i++) {
      for (const [, cwd, args] of lines)
        out.push({ cwd: cwd as string, args: (args as string).replaceAll('$i', String(i)) });
    }
  }
  return out;
}

describe('docs/ci-github-actions.md', () => {
  it('holds a workflow that parses, runs on pull requests, benchmarks both builds and gates on regressions', () => {
    expect(workflow.on).toHaveProperty('pull_request');
    const steps = workflow.jobs.bench.steps;
    expect(steps.filter((s) => s.uses?.startsWith('actions/checkout')).length).toBe(2);
    const rounds = Number(workflow.jobs.bench.env['ROUNDS']);
    // At least 3 rounds: fewer leave most metrics inconclusive (see the simulated error rates).
    expect(rounds).toBeGreaterThanOrEqual(3);
    const commands = dantinoxCommands(rounds);
    expect(commands.map((c) => c.args.split(' ')[0])).toEqual([
      ...Array(2 * rounds).fill('bench'),
      'compare',
    ]);
    // Every round of each side is compared: the bench runs go to one folder per side, and compare reads both
    // folders whole (repeated runs), baseline before "--", PR after it.
    const outs = commands
      .filter((c) => c.args.startsWith('bench'))
      .map((c) => /--out (\S+)/.exec(c.args)?.[1]);
    expect(outs.slice(0, 2)).toEqual(['../runs/base/1', '../runs/pr/1']);
    const compare = commands.at(-1)?.args ?? '';
    expect(compare).toMatch(/^compare \.\.\/runs\/base -- \.\.\/runs\/pr /);
    expect(compare).toContain('--fail-on-regression');
    expect(compare).not.toContain('$ROUNDS');
  });

  it('its dantinox commands run on tiny and produce the comment and the history', () => {
    const work = mkdtempSync(join(tmpdir(), 'dantinox-ci-'));
    for (const d of ['base', 'pr']) mkdirSync(join(work, d));
    const env = workflow.jobs.bench.env;
    // Two rounds here (the file's ROUNDS alternates more): the same commands, and compare tests 2 runs per side.
    const rounds = 2;
    for (const { cwd, args } of dantinoxCommands(rounds)) {
      const expanded = args
        .replaceAll('$BENCH_FLAGS', env['BENCH_FLAGS'] as string)
        .replaceAll('$ROUNDS', String(rounds));
      const redirect = /\s*> (\S+)$/.exec(expanded);
      const argv = expanded.replace(/\s*> \S+$/, '').split(/\s+/);
      const r = spawnSync(process.execPath, [BIN, ...argv], {
        cwd: join(work, cwd),
        encoding: 'utf8',
        env: { ...process.env, NO_COLOR: '1' },
        timeout: 240_000,
      });
      // The compare step may exit 1 (a regression between two runs of the same code is possible but rare).
      expect([0, 1], `${argv.join(' ')}\n${r.stderr}`).toContain(r.status);
      if (argv[0] === 'bench') expect(r.status, r.stderr).toBe(0);
      if (redirect !== null) {
        expect(r.stdout).toContain('### `');
        expect(r.stdout).toContain('### `pr (2 runs)` vs `base (2 runs)` (baseline)');
        // TTFT, TPOT and E2E are judged from runs like every metric: Welch on 2 + 2 runs.
        expect(r.stdout).toMatch(/\| latency \| ttft_ms \(ms\) \|.*\| 2\+2 \| welch \|/);
        expect(r.stdout).toContain('Runs per side: 2 baseline, 2 candidate');
      }
    }
    for (const f of [
      'runs/base/1/results.json',
      'runs/base/2/results.json',
      'runs/pr/1/results.json',
      'runs/pr/2/results.json',
      'compare/comparison.md',
      'bench-history.duckdb',
    ]) {
      expect(existsSync(join(work, f)), f).toBe(true);
    }
    const list = spawnSync(process.execPath, [BIN, 'history', 'list', '--history', 'bench-history.duckdb'], {
      cwd: work,
      encoding: 'utf8',
    });
    expect(list.status, list.stderr).toBe(0);
    expect(list.stdout.trim().split('\n')).toHaveLength(1 + 2 * rounds);
  }, 600_000);
});
