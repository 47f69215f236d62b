/**
 * One run of llama.cpp's own `llama-bench` (built by llama-cpp-build.ts), started from a spawner process so that the
 * measuring process never forks (see spawner.ts): the tokens/s it reports for one test.
 */
import type { Spawner } from './spawner.js';

/** What a `llama-bench` run measures, beside its test arguments. */
export interface LlamaBenchRun {
  /** The `llama-bench` program. */
  readonly bin: string;
  /** The GGUF file. */
  readonly model: string;
  /** CPU threads (`-t`). */
  readonly threads: number;
  /** KV cache type of keys and values (`-ctk`, `-ctv`): `f16` or `bf16`. */
  readonly kv: string;
}

/**
 * Tokens/s `llama-bench` reports for one repetition of the test `test` (`['-p', '512', '-n', '0']` for a prefill,
 * `['-p', '0', '-n', '16', '-d', '512']` for 16 decode steps at depth 512).
 */
export async function llamaBenchTps(
  spawner: Spawner,
  run: LlamaBenchRun,
  test: readonly string[],
): Promise<number> {
  const out = await spawner.run(run.bin, [
    '-m',
    run.model,
    '-t',
    String(run.threads),
    '-r',
    '1',
    '-o',
    'json',
    '-ctk',
    run.kv,
    '-ctv',
    run.kv,
    ...test,
  ]);
  const rows = JSON.parse(out) as { avg_ts: number }[];
  const tps = rows[0]?.avg_ts;
  if (tps === undefined) throw new Error(`llama-bench printed no result: ${out.slice(0, 200)}`);
  return tps;
}
