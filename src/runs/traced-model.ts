/**
 * A {@link Model} that records each of its engine calls as a span of a {@link TraceRecorder} (`bench --trace`),
 * with the phase of the cell call that made it and its shape, so that the engine's kernel events can be matched
 * to them and costed.
 *
 * @packageDocumentation
 */
import {
  type BatchShape,
  type CallOptions,
  type DecodeState,
  type Logits,
  logitPositions,
  type Model,
  type StepResult,
} from '../models/model.js';
import type { TraceRecorder } from '../profiling/index.js';

/**
 * `model` with every `forward`, `prefill`, `extend` and `decodeStep` recorded by `tracer` (one engine call each);
 * a model that can record its engine's own runs ({@link Model.traceEngineRuns}) is told to, into `tracer` too.
 */
export function tracedModel(model: Model, tracer: TraceRecorder): Model {
  model.traceEngineRuns?.(tracer);
  const extend = model.extend?.bind(model);
  const kvCacheHeldBytes = model.kvCacheHeldBytes?.bind(model);
  const traced: Model = {
    config: model.config,
    info: model.info,
    ...(model.tokenizer === undefined ? {} : { tokenizer: model.tokenizer }),
    forward: (tokens: Int32Array, shape: BatchShape, options?: CallOptions): Promise<Logits> =>
      tracer.engineCall('forward', () => model.forward(tokens, shape, options), {
        batch: shape.batch,
        seq: shape.seq,
        pastLength: 0,
      }),
    prefill: (tokens: Int32Array, shape: BatchShape, options?: CallOptions): Promise<StepResult> =>
      tracer.engineCall('prefill', () => model.prefill(tokens, shape, options), {
        batch: shape.batch,
        seq: shape.seq,
        pastLength: 0,
        logitPositions: logitPositions(options, shape.seq),
      }),
    decodeStep: (tokens: Int32Array, state: DecodeState, options?: CallOptions): Promise<StepResult> =>
      tracer.engineCall('decodeStep', () => model.decodeStep(tokens, state, options), {
        batch: state.batch,
        seq: 1,
        pastLength: state.length,
      }),
    ...(kvCacheHeldBytes === undefined ? {} : { kvCacheHeldBytes }),
    barrier: () => model.barrier(),
    numParameters: () => model.numParameters(),
    dispose: () => model.dispose(),
  };
  return extend === undefined
    ? traced
    : {
        ...traced,
        extend: (
          tokens: Int32Array,
          seq: number,
          state: DecodeState,
          options?: CallOptions,
        ): Promise<StepResult> =>
          tracer.engineCall('extend', () => extend(tokens, seq, state, options), {
            batch: state.batch,
            seq,
            pastLength: state.length,
            logitPositions: logitPositions(options, seq),
          }),
      };
}
