/**
 * `dantinox bench --model <folder> --tasks perplexity` on a small text, as the model-folder tests run it: one
 * batch of two 32-token windows, no calibration or charts; returns what it printed and its results row.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { parseCsv } from '../../src/benchmarking/csv.js';
import { runCli } from '../../src/cli/index.js';
import { captureIo } from '../cli/capture-io.js';

/**
 * Runs the bench on `model` (a folder under `cwd`) over `data` into `cwd/<out>`, expects exit 0, and returns its
 * stdout + stderr and the cells of its `results.csv` row by column name.
 */
export async function benchModelPerplexity(
  cwd: string,
  model: string,
  data: string,
  out: string,
): Promise<{ printed: string; cells: Record<string, string | undefined> }> {
  return benchPerplexity(
    cwd,
    [
      '--model',
      model,
      '--data',
      data,
      '--eval-batches',
      '1',
      '--eval-seq-len',
      '32',
      '--eval-batch-size',
      '2',
    ],
    out,
  );
}

/**
 * `dantinox bench --tasks perplexity <args> --no-calibrate --no-charts --out <out>` under `cwd`; expects exit 0 and
 * returns its stdout + stderr and the cells of its `results.csv` row by column name.
 */
export async function benchPerplexity(
  cwd: string,
  args: readonly string[],
  out: string,
): Promise<{ printed: string; cells: Record<string, string | undefined> }> {
  const io = captureIo(cwd);
  const code = await runCli(
    ['bench', '--tasks', 'perplexity', ...args, '--no-calibrate', '--no-charts', '--out', out],
    io,
  );
  expect(code, io.err.join('')).toBe(0);
  // Through the CSV parser: a field may hold a quoted comma (the Brown corpus's split name does).
  const { header, rows } = parseCsv(readFileSync(join(cwd, out, 'results.csv'), 'utf8'));
  const cells = Object.fromEntries(header.map((name, i) => [name, rows[0]?.[i]]));
  return { printed: io.out.join('') + io.err.join(''), cells };
}
