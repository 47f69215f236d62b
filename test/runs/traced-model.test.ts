/**
 * `tracedModel` records each engine call as a span and hands the call through unchanged: the same arguments,
 * `CallOptions` included (a timing task's `{ logits: false }` must reach the engine, or a traced llama.cpp or
 * browser model copies logits that an untraced one does not), and the same result.
 */
import { describe, expect, it } from 'vitest';
import type { CallOptions, DecodeState, Model } from '../../src/models/model.js';
import { createManualClock } from '../../src/profiling/clock.js';
import { TraceRecorder } from '../../src/profiling/trace-recorder.js';
import { tracedModel } from '../../src/runs/traced-model.js';
import { FakeModel } from '../benchmarking/fake-model.js';

/** A fake model with `extend` that records the options of every call. */
function recordingModel(seen: (CallOptions | undefined)[]): Model {
  const fake = new FakeModel();
  return Object.assign(Object.create(fake) as Model, {
    forward: (t: Int32Array, s: { batch: number; seq: number }, o?: CallOptions) => {
      seen.push(o);
      return fake.forward(t, s);
    },
    prefill: (t: Int32Array, s: { batch: number; seq: number }, o?: CallOptions) => {
      seen.push(o);
      return fake.prefill(t, s);
    },
    decodeStep: (t: Int32Array, state: DecodeState, o?: CallOptions) => {
      seen.push(o);
      return fake.decodeStep(t, state);
    },
    extend: (t: Int32Array, _seq: number, state: DecodeState, o?: CallOptions) => {
      seen.push(o);
      return fake.decodeStep(t, state);
    },
  });
}

describe('tracedModel', () => {
  it('passes each call’s options to the engine and records one span per call', async () => {
    const seen: (CallOptions | undefined)[] = [];
    const recorder = new TraceRecorder(createManualClock());
    const model = tracedModel(recordingModel(seen), recorder);
    const none = { logits: false };
    await model.forward(Int32Array.of(1, 2), { batch: 1, seq: 2 }, none);
    const { state } = await model.prefill(Int32Array.of(1, 2), { batch: 1, seq: 2 }, none);
    const stepped = await model.decodeStep(Int32Array.of(3), state, none);
    await model.extend?.(Int32Array.of(4), 1, stepped.state, none);
    await model.forward(Int32Array.of(1), { batch: 1, seq: 1 });
    expect(seen).toEqual([none, none, none, none, undefined]);
    expect(recorder.engineCalls().map((c) => c.name)).toEqual([
      'forward',
      'prefill',
      'decodeStep',
      'extend',
      'forward',
    ]);
  });
});
