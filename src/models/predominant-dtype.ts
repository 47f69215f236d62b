/**
 * The dtype most of a model's block matrices are stored in, for {@link QuantizationInfo.dtype} of files read
 * from disk (a Hugging Face ONNX graph, a GGUF file).
 *
 * @packageDocumentation
 */
import type { QuantizationInfo } from './model.js';

/** The most frequent of `dtypes` (the first to reach that count on a tie), or `fp32` when there is none. */
export function predominantDtype(dtypes: Iterable<string>): QuantizationInfo['dtype'] {
  const counts = new Map<string, number>();
  let best = 'fp32';
  let most = 0;
  for (const d of dtypes) {
    const n = (counts.get(d) ?? 0) + 1;
    counts.set(d, n);
    if (n > most) [best, most] = [d, n];
  }
  return best;
}
