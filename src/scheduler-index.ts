/**
 * The two ways a process gets its index i among n from the command line or a scheduler (a Kubernetes Indexed Job's
 * `JOB_COMPLETION_INDEX`, a Slurm array's `SLURM_ARRAY_TASK_ID`): as a shard, which deals whole variants or sweep
 * points (`--shard i/n`, `--shards n`), or as a load client, which sends its part of one sweep point's requests
 * (`--client i/n`, `--clients n`). One table, so that a message names the flags of the one the user gave.
 *
 * @packageDocumentation
 */

/** The flags that give a process its index, and what the index is called in messages. */
export interface IndexFlags {
  /** The flag giving both, `i/n`. */
  readonly one: '--shard' | '--client';
  /** The flag giving n when a scheduler gives i. */
  readonly count: '--shards' | '--clients';
  /** What the process is: `shard` or `client`. */
  readonly noun: 'shard' | 'client';
}

/** `--shard i/n`, `--shards n`: whole variants (sweep points) dealt over processes. */
export const SHARD_FLAGS: IndexFlags = Object.freeze({ one: '--shard', count: '--shards', noun: 'shard' });

/** `--client i/n`, `--clients n`: one sweep point's requests split over load client processes. */
export const CLIENT_FLAGS: IndexFlags = Object.freeze({
  one: '--client',
  count: '--clients',
  noun: 'client',
});
