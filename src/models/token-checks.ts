/**
 * Input validation shared by every {@link Model} implementation: token arrays, batch shapes and context
 * lengths are checked in TypeScript before any engine sees them, so bad input never reaches native code.
 *
 * @packageDocumentation
 */
import { DantinoxError } from '../errors.js';
import { messages } from '../messages.js';
import type { BatchShape } from './model.js';
import type { ModelConfig } from './model-config.js';

/**
 * Checks that `tokens` is an `Int32Array` of `shape.batch × shape.seq` ids in `[0, vocabSize)` and that
 * `pastLength + shape.seq` positions fit in `maxContext`.
 *
 * @param pastLength - tokens already in a KV cache before these. @default 0
 * @param what - what the input is for, used in the context-length message. @default 'the input'
 * @throws {@link DantinoxError} `INVALID_INPUT` naming the first problem found.
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
