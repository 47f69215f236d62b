/**
 * The git commit and branch of a working directory, recorded with runs in a results history.
 *
 * @packageDocumentation
 */
import { spawnSync } from 'node:child_process';

/** Commit and branch of the repository at `cwd`; both `null` outside a git repository or without git. */
export interface GitInfo {
  /** Full commit hash of HEAD. */
  readonly gitCommit: string | null;
  /** Branch name (`HEAD` when detached). */
  readonly gitBranch: string | null;
}

function git(args: readonly string[], cwd: string): string | null {
  const r = spawnSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  return r.status === 0 && typeof r.stdout === 'string' && r.stdout.trim() !== '' ? r.stdout.trim() : null;
}

/** Reads `git rev-parse HEAD` and `git rev-parse --abbrev-ref HEAD` in `cwd`. */
export function gitInfo(cwd: string): GitInfo {
  return {
    gitCommit: git(['rev-parse', 'HEAD'], cwd),
    gitBranch: git(['rev-parse', '--abbrev-ref', 'HEAD'], cwd),
  };
}
