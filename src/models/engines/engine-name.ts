/**
 * The inference engines a {@link Model} can run on, by the names `--engine` and the library use.
 *
 * @packageDocumentation
 */

/**
 * Engines: `ort` (dantinox's own ONNX graphs on onnxruntime-node), `llama.cpp` (a GGUF export run by
 * node-llama-cpp) and `transformers.js` (a Hugging Face ONNX folder run by @huggingface/transformers).
 */
export const ENGINE_NAMES = ['ort', 'llama.cpp', 'transformers.js'] as const;

/** One of {@link ENGINE_NAMES}. */
export type EngineName = (typeof ENGINE_NAMES)[number];
