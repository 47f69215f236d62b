/**
 * The workload a load's options ask for: a trace replayed at its times, recorded conversations, a prompts file, or
 * synthetic or Brown-corpus prompts of a given length (optionally multi-turn, with shared prefixes).
 *
 * @packageDocumentation
 */
import { DantinoxError } from '../errors.js';
import { messages } from '../messages.js';
import type { WorkloadSpec } from './run-load.js';

/** What {@link loadWorkload} reads: the workload options of `dantinox load`, as given. */
export interface LoadWorkloadInput {
  /** `--prompts`: `synthetic`, `brown`, or a JSONL file of prompts. */
  readonly prompts: string;
  /** `--input-tokens`: prompt tokens of synthetic and Brown prompts. */
  readonly inputTokens: number;
  /** `--output-tokens`: tokens asked per request. */
  readonly outputTokens: number;
  /** `--trace`: an Azure CSV or Mooncake JSONL trace to replay. */
  readonly trace?: string | undefined;
  /** `--conversations`: a JSONL file of conversations to replay. */
  readonly conversations?: string | undefined;
  /** `--turns`: turns of each synthetic or Brown conversation. */
  readonly turns?: number | undefined;
  /** `--shared-prefix`: tokens at the start of each prompt shared within its group. */
  readonly sharedPrefix?: number | undefined;
  /** `--prefix-groups`: groups of prompts sharing one prefix. */
  readonly prefixGroups?: number | undefined;
}

/**
 * The {@link WorkloadSpec} of `input`: a trace wins, then conversations, then the prompts source; the shaping
 * options (turns, shared prefix, prefix groups) apply to synthetic and Brown prompts only.
 *
 * @throws {@link dantinox!DantinoxError} `INVALID_OPTION` naming the two flags when a trace or conversations come
 *   with another prompt source or a shaping option, or a prompts file with a shaping option.
 */
export function loadWorkload(input: LoadWorkloadInput): WorkloadSpec {
  const conflict = (a: string, b: string): DantinoxError =>
    new DantinoxError('INVALID_OPTION', messages.loadFlagsConflict(a, b));
  const shaped =
    input.turns !== undefined || input.sharedPrefix !== undefined || input.prefixGroups !== undefined;
  const shapeFlag =
    input.turns !== undefined
      ? '--turns'
      : input.sharedPrefix !== undefined
        ? '--shared-prefix'
        : '--prefix-groups';
  if (input.trace !== undefined) {
    if (input.prompts !== 'synthetic') throw conflict('--trace', '--prompts');
    if (input.conversations !== undefined) throw conflict('--trace', '--conversations');
    if (shaped) throw conflict('--trace', shapeFlag);
    return { kind: 'trace', path: input.trace };
  }
  if (input.conversations !== undefined) {
    if (input.prompts !== 'synthetic') throw conflict('--conversations', '--prompts');
    if (shaped) throw conflict('--conversations', shapeFlag);
    return { kind: 'conversations', path: input.conversations, outputTokens: input.outputTokens };
  }
  if (input.prompts === 'synthetic' || input.prompts === 'brown')
    return {
      kind: input.prompts,
      inputTokens: input.inputTokens,
      outputTokens: input.outputTokens,
      ...(input.sharedPrefix === undefined ? {} : { prefixTokens: input.sharedPrefix }),
      ...(input.prefixGroups === undefined ? {} : { prefixGroups: input.prefixGroups }),
      ...(input.turns === undefined ? {} : { turns: input.turns }),
    };
  if (shaped) throw conflict(`--prompts ${input.prompts}`, shapeFlag);
  return { kind: 'prompts', path: input.prompts, outputTokens: input.outputTokens };
}
