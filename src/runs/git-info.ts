/**
 * The git state of a working directory — commit, branch, uncommitted changes — read when a run starts and recorded
 * in its environment, so the history knows which source was measured.
 *
 * @packageDocumentation
 */
import { spawnSync } from 'node:child_process';
import type { GitState } from '../benchmarking/environment.js';

function git(args: readonly string[], cwd: string): string | null {
  const r = spawnSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  return r.status === 0 && typeof r.stdout === 'string' ? r.stdout.trim() : null;
}

/**
 * Reads `git rev-parse HEAD`, `git rev-parse --abbrev-ref HEAD` and whether tracked files have uncommitted changes
 * in `cwd`; every field `null` outside a repository or without git.
 */
export function gitInfo(cwd: string): GitState {
  const commit = git(['rev-parse', 'HEAD'], cwd);
  if (commit === null || commit === '') return { commit: null, branch: null, dirty: null };
  const status = git(['status', '--porcelain', '--untracked-files=no'], cwd);
  return {
    commit,
    branch: git(['rev-parse', '--abbrev-ref', 'HEAD'], cwd) || null,
    dirty: status === null ? null : status !== '',
  };
}
