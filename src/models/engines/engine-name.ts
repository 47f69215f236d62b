/**
 * The inference engines a {@link Model} can run on, by the names `--engine` and the library use.
 *
 * @packageDocumentation
 */
import { DantinoxError } from '../../errors.js';
import { messages } from '../../messages.js';

/**
 * Engines: `ort` (dantinox's own ONNX graphs on onnxruntime-node), `llama.cpp` (a GGUF export run by
 * node-llama-cpp) and `transformers.js` (a Hugging Face ONNX folder run by @huggingface/transformers).
 */
export const ENGINE_NAMES = ['ort', 'llama.cpp', 'transformers.js'] as const;

/** One of {@link ENGINE_NAMES}. */
export type EngineName = (typeof ENGINE_NAMES)[number];

/**
 * Parses an engine name.
 *
 * @throws {@link DantinoxError} `INVALID_OPTION` listing the engines.
 */
export function parseEngineName(text: string): EngineName {
  if ((ENGINE_NAMES as readonly string[]).includes(text)) return text as EngineName;
  throw new DantinoxError('INVALID_OPTION', messages.unknownName('engine', text, ENGINE_NAMES));
}
