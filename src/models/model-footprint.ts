/**
 * The memory footprint of a loaded model as its engine holds it while it runs.
 *
 * @packageDocumentation
 */
import type { Dtype } from '../dtype.js';
import { type MemoryFootprint, memoryFootprint } from '../profiling/index.js';
import type { Model } from './model.js';

/**
 * Bytes of `model` as its engine holds them while it runs ({@link memoryFootprint} of its config): the weights in
 * their run-time dtype (the built-in `fp16` graph's weights are cast to float32 when its session is created), the
 * LM head in its own dtype when the weights keep theirs, and the KV cache in the engine's element type (a llama.cpp
 * model's F16 cache: 2 bytes). Bandwidth figures (MBU, arithmetic intensity) and the depth sweep's predictions
 * use it.
 */
export function modelFootprint(model: Pick<Model, 'config' | 'info'>): MemoryFootprint {
  const { info } = model;
  const runtimeDtype = info.runtimeDtype ?? info.dtype;
  const headDtype = info.quantization?.headDtype;
  return memoryFootprint(model.config, {
    dtype: runtimeDtype,
    ...(headDtype === undefined || runtimeDtype !== info.dtype ? {} : { headDtype: headDtype as Dtype }),
    ...(info.kvBytesPerElement === undefined ? {} : { kvBytesPerElement: info.kvBytesPerElement }),
  });
}
