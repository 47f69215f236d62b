/**
 * How the built-in model's weights reach ONNX Runtime without the process holding them twice: the graph is written
 * to a private temporary folder (`model.onnx` + a 4 KiB-aligned `model.onnx_data`), one weight at a time — each
 * seeded weight is generated when its initializer is added, written to `model.onnx_data` at once and dropped, so
 * JavaScript holds one weight (or one fused matrix and its parts) at any moment, never the whole model — and only
 * then does ONNX Runtime load the files (it memory-maps the external data and prepacks the weights into its own
 * buffers). The folder is removed once the session exists.
 *
 * ONNX Runtime prepacks the weights in the file's node order, and while it packs a matrix both the packed copy and
 * the mapped source pages are resident. The LM head (vocabulary × dim, the largest matrix) would be packed last,
 * on top of everything else: gpt2-small's creation peaked 147 MiB (one head) above the settled RSS. Its node is
 * therefore written first (ONNX Runtime sorts the graph itself), and the peak is within 2% of the settled RSS.
 *
 * Handing ORT in-memory buffers instead (the `externalData` session option) keeps the JS weights, ORT's copy and
 * its prepacked weights alive together: gpt2-small's creation peaked at 3.9× its weight bytes that way.
 *
 * @packageDocumentation
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { QuantizationInfo } from '../model.js';
import type { ModelConfig } from '../model-config.js';
import { checkWeights, seededWeights, type WeightMap } from '../weights.js';
import { GraphBuilder } from './graph-builder.js';
import type { WeightPrecision } from './precision.js';
import { buildTransformerGraph } from './transformer-graph.js';

/** The written graph of a built-in model. */
export interface ModelFiles {
  /** Path of `model.onnx` (its weights are in `model.onnx_data` beside it). */
  readonly modelPath: string;
  /** Whether the graph has a `position_ids` input. */
  readonly hasPositionIds: boolean;
  /** Which matrices are not float32 (absent for an all-float32 graph). */
  readonly quantization?: QuantizationInfo;
  /** Removes the folder; returns whether it is gone (a platform may refuse while the engine maps the file). */
  remove(): boolean;
}

/**
 * Builds the transformer graph of `config` over `weights` (or over weights regenerated from `seed`), its matrices
 * stored in `precision`, and writes it to a fresh temporary folder. Synchronous on purpose: once it returns, seeded weights are referenced by nothing
 * (an async frame would keep its locals alive across `await`).
 *
 * @throws {@link ValidationError} `INVALID_INPUT` when `weights` do not match `config`; a file-system error when
 * the temporary folder cannot be written.
 */
export function writeModelFiles(
  config: ModelConfig,
  source: { readonly weights: WeightMap } | { readonly seed: number },
  precision?: WeightPrecision,
): ModelFiles {
  // Seeded weights are correct by construction: checking them would generate every tensor once more.
  const weights = 'weights' in source ? source.weights : seededWeights(config, source.seed);
  if ('weights' in source) checkWeights(config, weights);
  const dir = mkdtempSync(join(tmpdir(), 'dantinox-model-'));
  const modelPath = join(dir, 'model.onnx');
  let graph: ReturnType<typeof buildTransformerGraph>;
  let builder: GraphBuilder | undefined;
  try {
    // V8 frees large arrays when it sees fit, possibly after several more were made: collect every 64 MiB.
    let collectedAt = 0;
    builder = new GraphBuilder({
      streamTo: modelPath,
      onStreamed: (bytes) => {
        if (bytes - collectedAt < COLLECT_EVERY_BYTES) return;
        collectedAt = bytes;
        collectGarbage();
      },
    });
    graph = buildTransformerGraph(config, weights, precision, builder);
    builder.write(modelPath, { externalData: true, firstNodes: ['logits'] });
  } catch (error) {
    builder?.discard();
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    modelPath,
    hasPositionIds: graph.hasPositionIds,
    ...(graph.quantization === undefined ? {} : { quantization: graph.quantization }),
    remove: () => {
      try {
        rmSync(dir, { recursive: true, force: true });
        return true;
      } catch {
        return false;
      }
    },
  };
}

/** Bytes of weights streamed between two garbage collections while the model files are written. */
const COLLECT_EVERY_BYTES = 64 * 1024 * 1024;

let gc: (() => void) | undefined;

/**
 * Runs a full garbage collection now, so that large `ArrayBuffer`s nothing references any more (the weights just
 * written) are freed before the engine allocates its own copy. V8 does not know about the engine's native memory
 * and would otherwise collect them later, after the peak.
 */
export function collectGarbage(): void {
  if (gc === undefined) {
    const exposed = (globalThis as { gc?: () => void }).gc;
    if (exposed === undefined) setFlagsFromString('--expose_gc');
    gc = exposed ?? (runInNewContext('gc') as () => void);
  }
  gc();
}
