/**
 * ONNX Runtime's operator profiler around one prefill and one decode step of a model: the model is opened with
 * profiling on in a private temporary folder, called, disposed (which writes the trace) and the trace is read
 * back. Parse it with `parseOrtProfile` from `dantinox/profiling`.
 *
 * @packageDocumentation
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DantinoxError } from '../../../errors.js';
import { messages } from '../../../messages.js';
import type { Model } from '../../model.js';

/** What {@link profileModelCalls} runs. */
export interface ProfiledCalls {
  /** Prompt of the prefill (batch 1); its length is the prefill's sequence length. */
  readonly promptIds: Int32Array;
  /**
   * The token of the decode step at context `promptIds.length`; `undefined` for a model without KV-cache decode
   * (then two full forward passes are run instead of prefill + decode).
   */
  readonly decodeId: Int32Array | undefined;
}

/**
 * Opens a model with ONNX Runtime's profiler on (`open` receives the `profileFilePrefix` to pass to `createModel`
 * or `loadHfModel`), runs one warm-up round then the profiled round — a prefill over `calls.promptIds` and one
 * decode step — disposes it and returns the parsed Chrome-trace JSON. The trace holds one `model_run` per call:
 * warm-up prefill, warm-up decode, prefill, decode (the last two are the profiled calls).
 *
 * @throws the errors of `open` and of the model's calls; {@link DantinoxError} `IO` when ONNX Runtime wrote no
 * readable trace.
 */
export async function profileModelCalls(
  open: (profileFilePrefix: string) => Promise<Model>,
  calls: ProfiledCalls,
): Promise<unknown> {
  const dir = mkdtempSync(join(tmpdir(), 'dantinox-profile-'));
  try {
    const model = await open(join(dir, 'ort'));
    try {
      const shape = { batch: 1, seq: calls.promptIds.length };
      for (let round = 0; round < 2; round++) {
        if (calls.decodeId === undefined) {
          await model.forward(calls.promptIds, shape);
          continue;
        }
        const { state } = await model.prefill(calls.promptIds, shape);
        const step = await model.decodeStep(calls.decodeId, state);
        step.state.dispose();
      }
    } finally {
      await model.dispose();
    }
    const file = readdirSync(dir).find((f) => f.startsWith('ort') && f.endsWith('.json'));
    if (file === undefined) throw new DantinoxError('IO', messages.ortTraceMissing(dir));
    try {
      return JSON.parse(readFileSync(join(dir, file), 'utf8'));
    } catch (cause) {
      throw new DantinoxError('IO', messages.ortTraceMissing(join(dir, file)), { cause });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
