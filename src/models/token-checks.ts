/**
 * Input validation shared by every {@link Model} implementation: token arrays, batch shapes and context
 * lengths are checked in TypeScript before any engine sees them, so bad input never reaches native code.
 *
 * @packageDocumentation
 */
import { DantinoxError } from '../errors.js';
import { messages } from '../messages.js';
import type { BatchShape, DecodeState, Model } from './model.js';
import type { ModelConfig } from './model-config.js';

/**
 * Checks that `tokens` is an `Int32Array` of `shape.batch × shape.seq` ids in `[0, vocabSize)` and that
 * `pastLength + shape.seq` positions fit in `maxContext`.
 *
 * @param pastLength - tokens already in a KV cache before these. @default 0
 * @param what - what the input is for, used in the context-length message. @default 'the input'
 * @throws {@link dantinox!DantinoxError} `INVALID_INPUT` naming the first problem found.
 */
export function checkTokenBatch(
  config: ModelConfig,
  tokens: Int32Array,
  shape: BatchShape,
  pastLength = 0,
  what = 'the input',
): void {
  if (!(tokens instanceof Int32Array)) {
    const got = tokens === null ? 'null' : ((tokens as object)?.constructor?.name ?? typeof tokens);
    throw new DantinoxError('INVALID_INPUT', messages.tokensNotInt32(got));
  }
  const { batch, seq } = shape ?? ({} as Partial<BatchShape>);
  if (!Number.isSafeInteger(batch) || !Number.isSafeInteger(seq) || (batch ?? 0) < 1 || (seq ?? 0) < 1) {
    throw new DantinoxError('INVALID_INPUT', messages.badBatchShape(batch, seq));
  }
  if (tokens.length !== batch * seq) {
    throw new DantinoxError('INVALID_INPUT', messages.tokensLengthMismatch(tokens.length, batch, seq));
  }
  if (pastLength + seq > config.maxContext) {
    throw new DantinoxError(
      'INVALID_INPUT',
      messages.contextExceeded(pastLength + seq, config.maxContext, what),
    );
  }
  const v = config.vocabSize;
  for (let i = 0; i < tokens.length; i++) {
    const id = tokens[i] ?? -1;
    if (id < 0 || id >= v) throw new DantinoxError('INVALID_INPUT', messages.tokenOutOfRange(i, id, v));
  }
}

/** What {@link claimDecodeState} needs of a model's decode state: its owner and its life-cycle flags. */
export interface ClaimableDecodeState extends DecodeState {
  /** The model (or an opaque token of it) that made the state. */
  readonly owner: object;
  /** Set once a decode step has consumed the state. */
  consumed: boolean;
  /** Set once the state was disposed. */
  readonly disposed: boolean;
}

/**
 * `state`, checked to be a live state of `stateClass` made by `owner`: neither disposed nor consumed.
 *
 * @throws {@link dantinox!DantinoxError} `INVALID_INPUT` naming the first problem found.
 */
export function liveDecodeState<S extends ClaimableDecodeState>(
  state: DecodeState,
  stateClass: abstract new (...args: never[]) => S,
  owner: object,
): S {
  if (!(state instanceof stateClass) || state.owner !== owner) {
    throw new DantinoxError('INVALID_INPUT', messages.badDecodeState('it was not made by this model'));
  }
  if (state.disposed) throw new DantinoxError('INVALID_INPUT', messages.badDecodeState('it was disposed'));
  if (state.consumed) {
    throw new DantinoxError(
      'INVALID_INPUT',
      messages.badDecodeState('it was already consumed by decodeStep'),
    );
  }
  return state;
}

/**
 * The states of a `RowBatching.joinRows` call, checked: at least one, each live (see {@link liveDecodeState}),
 * none twice.
 *
 * @throws {@link dantinox!DantinoxError} `INVALID_INPUT` naming the first problem found.
 */
export function statesToJoin<S extends ClaimableDecodeState>(
  states: readonly DecodeState[],
  stateClass: abstract new (...args: never[]) => S,
  owner: object,
): S[] {
  if (states.length === 0)
    throw new DantinoxError('INVALID_INPUT', messages.badDecodeState('no state to join'));
  const own = states.map((st) => liveDecodeState(st, stateClass, owner));
  if (new Set(own).size !== own.length)
    throw new DantinoxError('INVALID_INPUT', messages.badDecodeState('the same state was passed twice'));
  return own;
}

/**
 * Checks the rows of a `RowBatching.keepRows` call: at least one, integers, ascending, each below `batch`.
 *
 * @throws {@link dantinox!DantinoxError} `INVALID_INPUT` listing the rows.
 */
export function checkRowsToKeep(batch: number, keep: readonly number[]): void {
  const ascending = keep.every(
    (r, i) => Number.isInteger(r) && r >= 0 && r < batch && (i === 0 || r > (keep[i - 1] as number)),
  );
  if (keep.length === 0 || !ascending)
    throw new DantinoxError(
      'INVALID_INPUT',
      messages.badDecodeState(`rows [${keep.join(', ')}] are not ascending rows of its ${batch}`),
    );
}

/**
 * Validates one decode step's input and takes the state: `state` must be an instance of `stateClass` made by
 * `owner`, neither disposed nor consumed; `tokens` must hold `seq` ids per sequence (one for a decode step, more
 * for {@link Model.extend}) and fit in `maxContext` after the cached positions. Marks the state consumed and
 * returns it, narrowed.
 *
 * @param seq - new tokens per sequence. @default 1
 *
 * @throws {@link dantinox!DantinoxError} `INVALID_INPUT` naming the first problem found.
 */
export function claimDecodeState<S extends ClaimableDecodeState>(
  config: ModelConfig,
  tokens: Int32Array,
  state: DecodeState,
  stateClass: abstract new (...args: never[]) => S,
  owner: object,
  seq = 1,
): S {
  const live = liveDecodeState(state, stateClass, owner);
  if (seq === 1 && tokens instanceof Int32Array && tokens.length !== live.batch) {
    throw new DantinoxError('INVALID_INPUT', messages.decodeTokensMismatch(tokens.length, live.batch));
  }
  checkTokenBatch(
    config,
    tokens,
    { batch: live.batch, seq },
    live.length,
    seq === 1 ? 'decodeStep' : 'extend',
  );
  live.consumed = true;
  return live;
}
