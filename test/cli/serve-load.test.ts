/**
 * Serving end to end, both halves ours: `dantinox serve --config tiny` (the built CLI, a child process on
 * loopback) loaded by `dantinox load`, twice, and the two run folders compared by `dantinox compare` — the server
 * generates exactly the tokens asked for, the load counts them, and the comparison takes the runs as it takes any.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunDirectory } from '../../src/benchmarking/run-directory.js';
import { ExitCode } from '../../src/cli/index.js';
import { type CliRun, ensureBuilt } from './built-cli.js';
import { runCliInProcess } from './capture-io.js';
import { type Served, serve, tinyLoadArgs } from './serve-process.js';

const cwd = mkdtempSync(join(tmpdir(), 'dantinox-serve-load-'));
let served: Served;
beforeAll(async () => {
  ensureBuilt();
  served = await serve(['--max-batch', '4']);
}, 120_000);
afterAll(async () => {
  served.child.kill('SIGTERM');
  await served.exit;
});

const load = (out: string): Promise<CliRun> =>
  runCliInProcess([...tinyLoadArgs(served.url, out), '--no-charts'], cwd);

describe('dantinox serve + load + compare', () => {
  it('loads our own server at two concurrencies, twice, and compares the two runs', async () => {
    const first = await load('a');
    expect(first.code, first.stderr).toBe(ExitCode.ok);
    const second = await load('b');
    expect(second.code, second.stderr).toBe(ExitCode.ok);
    const row = RunDirectory.load(join(cwd, 'a')).results.find((r) => r.task === 'serving');
    const cells = row?.cells ?? [];
    expect(cells.map((c) => c.cell)).toEqual(['concurrency=1,rate=inf', 'concurrency=4,rate=inf']);
    for (const cell of cells) {
      // Every request succeeded and the server generated exactly the 5 tokens asked for (ignore_eos, min_tokens).
      expect(cell.metrics['succeeded'], cell.cell).toBe(8);
      expect(cell.metrics['errors'], cell.cell).toBe(0);
      expect(cell.metrics['server_tokens'], cell.cell).toBe(8 * 5);
      expect(cell.metrics['ttft_ms'], cell.cell).toBeGreaterThan(0);
      expect(cell.metrics['e2e_ms'], cell.cell).toBeGreaterThanOrEqual(cell.metrics['ttft_ms'] ?? Number.NaN);
      // the server's own timings read back: its prefill is part of the TTFT the client saw
      const prefill = cell.metrics['server_prompt_ms'] ?? Number.NaN;
      expect(prefill, cell.cell).toBeGreaterThan(0);
      expect(prefill, cell.cell).toBeLessThan(cell.metrics['ttft_ms'] ?? Number.NaN);
      expect(cell.metrics['server_tpot_ms'], cell.cell).toBeGreaterThan(0);
    }
    const compared = await runCliInProcess(
      ['compare', 'a', 'b', '--noise-floor', '50%', '--format', 'json'],
      cwd,
    );
    expect([ExitCode.ok, ExitCode.taskFailed], compared.stderr).toContain(compared.code);
    const json = JSON.parse(compared.stdout) as {
      comparisons: { rows: { task: string; cell: string | null; metric: string; verdict: string }[] }[];
    };
    // Each sweep point's latencies and throughput are compared, point by point, with a verdict.
    const rows = json.comparisons[0]?.rows.filter((r) => r.task === 'serving') ?? [];
    for (const cell of ['concurrency=1,rate=inf', 'concurrency=4,rate=inf'])
      expect(rows.filter((r) => r.cell === cell).map((r) => r.metric)).toEqual(
        expect.arrayContaining(['ttft_ms', 'tpot_ms', 'output_tps']),
      );
    expect(rows.find((r) => r.metric === 'ttft_ms')?.verdict).toMatch(
      /^(improved|regressed|inconclusive|within noise|no significant change)$/,
    );
  }, 180_000);
});
