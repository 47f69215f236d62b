/**
 * Count the FLOPs, parameters and memory of a model config: pure arithmetic, no model is built or run.
 *
 * In your own project import from the package instead: `import { countFlops } from 'dantinox/profiling'` and
 * `import { ModelConfig } from 'dantinox'`.
 */
import { ModelConfig } from '../src/index.js';
import {
  countDecodeFlops,
  countFlops,
  countParameters,
  formatFlops,
  memoryFootprint,
} from '../src/profiling/index.js';

/** Prints the FLOPs of the `small` preset for one 4 × 512 forward pass and one decode step. */
export function main(log: (line: string) => void = console.log): void {
  const config = ModelConfig.preset('small'); // or ModelConfig.load('my-model.yaml'), or ModelConfig.parse({...})
  const flops = countFlops(config, { seqLen: 512, batchSize: 4 });
  log(String(flops)); // the seed's print(flops): attention, ffn, embedding, total

  const seed = countFlops(config, { seqLen: 512, batchSize: 4, formula: 'seed' });
  log(`seed formula total: ${formatFlops(seed.total)} (exact: ${formatFlops(flops.total)})`);

  const step = countDecodeFlops(config, { context: 511 }); // one new token attending over 512 keys
  log(`one decode step at context 511: ${formatFlops(step.total)}`);

  const memory = memoryFootprint(config, { dtype: 'fp32' });
  log(`parameters: ${countParameters(config).total}, weights: ${memory.weightBytes} B`);
  log(`KV cache: ${memory.kvBytesPerToken} B per token per sequence`);
}
