/**
 * Runs the sbatch scripts of docs/ as Slurm would, without Slurm: `dantinox` on PATH as a shim to the built CLI,
 * then one `bash <script>` per id of its `#SBATCH --array=<first>-<last>` with the array's variables set.
 */
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, type CliRun, runProcess } from './built-cli.js';

/** A PATH with a `dantinox` that runs the built CLI first, its shim written into `dir/bin`. */
export function dantinoxOnPath(dir: string): string {
  mkdirSync(join(dir, 'bin'), { recursive: true });
  const shim = join(dir, 'bin/dantinox');
  writeFileSync(shim, `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
  chmodSync(shim, 0o755);
  return `${join(dir, 'bin')}:${process.env['PATH'] ?? ''}`;
}

/**
 * Runs every task of the array `script` declares (`--array=<first>-<last>`), at once, in `dir` with `env` and
 * `SLURM_ARRAY_TASK_ID`, `SLURM_ARRAY_TASK_MIN` and `SLURM_ARRAY_TASK_COUNT` set; `run` is the script file to run
 * (a scaled-down copy of `script`, or `script` itself).
 */
export async function runSlurmArray(
  script: string,
  dir: string,
  env: NodeJS.ProcessEnv,
  run: string = script,
): Promise<CliRun[]> {
  const [, first, last] = /^#SBATCH --array=(\d+)-(\d+)$/m.exec(readFileSync(script, 'utf8')) ?? [];
  const ids = Array.from({ length: Number(last) - Number(first) + 1 }, (_, i) => Number(first) + i);
  return Promise.all(
    ids.map((id) =>
      runProcess('bash', [run], {
        cwd: dir,
        env: {
          ...env,
          SLURM_ARRAY_TASK_ID: String(id),
          SLURM_ARRAY_TASK_MIN: String(first),
          SLURM_ARRAY_TASK_COUNT: String(ids.length),
        },
      }),
    ),
  );
}
