/**
 * Checks an ONNX Runtime session against the Hugging Face decoder-with-past I/O convention (including the
 * `use_cache_branch` flag of optimum's merged decoders) and describes how to feed it: which optional inputs exist, the element types, and the KV-cache shape and dtype read from the
 * session's input metadata.
 *
 * @packageDocumentation
 */
import type { TensorType } from '../../dtype.js';
import { DantinoxError } from '../../errors.js';
import { messages } from '../../messages.js';
import type { ModelConfig } from '../model-config.js';

/** KV-cache layout of a decoder graph: `[batch, kvHeads, length, headSize]` of `type`. */
export interface PastLayout {
  /** Element type of the cache tensors. */
  readonly type: Extract<TensorType, 'float32' | 'float16'>;
  /** Key/value heads (dimension 1). */
  readonly kvHeads: number;
  /** Per-head size (dimension 3). */
  readonly headSize: number;
}

/** How to feed and read a decoder graph. */
export interface DecoderIo {
  /** `input_ids`. */
  readonly inputIds: string;
  /** Element type of `input_ids`. */
  readonly idsType: 'int64' | 'int32';
  /** `attention_mask`. */
  readonly attentionMask: string;
  /** `position_ids`, when the graph has it. */
  readonly positionIds?: string;
  /** `use_cache_branch` (bool `[1]`) of merged decoders (`decoder_model_merged.onnx`), when the graph has it. */
  readonly useCacheBranch?: string;
  /** `past_key_values.{i}.key`, `past_key_values.{i}.value` for every layer, in that order. */
  readonly pastNames: readonly string[];
  /** `present.{i}.key`, `present.{i}.value`, aligned with {@link DecoderIo.pastNames}. */
  readonly presentNames: readonly string[];
  /** `logits`. */
  readonly logits: string;
  /** Output names to fetch when the cache is wanted: logits then every present. */
  readonly fetchAll: readonly string[];
  /** Output names to fetch for a plain forward pass. */
  readonly fetchLogits: readonly string[];
  /** Cache layout. */
  readonly past: PastLayout;
}

/** One input's metadata: name, and for a tensor its element type and shape (symbolic dimensions as strings). */
export type IoMetadata =
  | { readonly name: string; readonly isTensor: false }
  | {
      readonly name: string;
      readonly isTensor: true;
      readonly type: string;
      readonly shape: readonly (number | string)[];
    };

/**
 * What {@link decoderIo} reads of a session: its input and output names and input metadata (an onnxruntime-node
 * session, or what an onnxruntime-web session in a browser page reported).
 */
export interface DecoderIoSource {
  /** Input names. */
  readonly inputNames: readonly string[];
  /** Output names. */
  readonly outputNames: readonly string[];
  /** Input metadata. */
  readonly inputMetadata: readonly IoMetadata[];
}

type Meta = IoMetadata;

function fail(path: string, problem: string): never {
  throw new DantinoxError('INVALID_INPUT', messages.hfBadDecoderIo(path, problem));
}

function tensorMeta(list: readonly Meta[], name: string): Extract<Meta, { isTensor: true }> | undefined {
  const m = list.find((x) => x.name === name);
  return m?.isTensor === true ? m : undefined;
}

/** Checks one dimension of a cache tensor when the graph fixes it. */
function checkDim(
  path: string,
  name: string,
  dim: number | string | undefined,
  want: number,
  what: string,
): void {
  if (typeof dim === 'number' && dim !== want) {
    fail(
      path,
      `${name} has ${dim} ${what} (dimension ${what === 'key/value heads' ? 1 : 3}) but config.json implies ${want}`,
    );
  }
}

/**
 * Reads the I/O of `session` (names and input metadata) and checks it against the convention and against `config` (layer count, KV heads,
 * head size).
 *
 * @throws {@link dantinox!DantinoxError} `INVALID_INPUT` naming `path`, what is wrong and what was expected.
 */
export function decoderIo(session: DecoderIoSource, config: ModelConfig, path: string): DecoderIo {
  const inputs = session.inputNames;
  const outputs = session.outputNames;
  if (!inputs.includes('input_ids')) fail(path, `it has no input "input_ids" (inputs: ${inputs.join(', ')})`);
  if (!outputs.includes('logits')) fail(path, `it has no output "logits" (outputs: ${outputs.join(', ')})`);
  const pastNames: string[] = [];
  const presentNames: string[] = [];
  for (let i = 0; i < config.numBlocks; i++) {
    for (const kind of ['key', 'value']) {
      pastNames.push(`past_key_values.${i}.${kind}`);
      presentNames.push(`present.${i}.${kind}`);
    }
  }
  const pastInFile = inputs.filter((n) => n.startsWith('past_key_values.'));
  if (pastInFile.length === 0) {
    fail(path, 'it has no past_key_values.{i}.key/.value inputs (a decoder exported without KV cache)');
  }
  for (const name of pastNames) {
    if (!inputs.includes(name)) {
      fail(
        path,
        `input "${name}" is missing: config.json has ${config.numBlocks} layers, the graph has ${pastInFile.length / 2} past_key_values pairs`,
      );
    }
  }
  for (const name of presentNames) {
    if (!outputs.includes(name)) fail(path, `output "${name}" is missing (outputs: ${outputs.join(', ')})`);
  }
  const known = new Set(['input_ids', 'attention_mask', 'position_ids', 'use_cache_branch', ...pastNames]);
  const unknown = inputs.filter((n) => !known.has(n));
  if (unknown.length > 0)
    fail(path, `it has inputs dantinox does not know how to feed: ${unknown.join(', ')}`);
  if (!inputs.includes('attention_mask')) fail(path, 'it has no input "attention_mask"');

  const ids = tensorMeta(session.inputMetadata, 'input_ids');
  const idsType = ids?.type === 'int32' ? 'int32' : 'int64';
  if (ids !== undefined && ids.type !== 'int32' && ids.type !== 'int64') {
    fail(path, `input_ids has element type ${ids.type}, expected int64`);
  }
  const first = tensorMeta(session.inputMetadata, pastNames[0] ?? '');
  const type = first?.type ?? 'float32';
  if (type !== 'float32' && type !== 'float16') {
    fail(path, `${pastNames[0]} has element type ${type}, expected float32 or float16`);
  }
  for (const name of pastNames) {
    const m = tensorMeta(session.inputMetadata, name);
    if (m === undefined) continue;
    if (m.shape.length !== 0 && m.shape.length !== 4) {
      fail(path, `${name} has rank ${m.shape.length}, expected [batch, kv_heads, past_length, head_dim]`);
    }
    checkDim(path, name, m.shape[1], config.kvHeads, 'key/value heads');
    checkDim(path, name, m.shape[3], config.headSize, 'head size');
  }
  const io: DecoderIo = {
    inputIds: 'input_ids',
    idsType,
    attentionMask: 'attention_mask',
    pastNames,
    presentNames,
    logits: 'logits',
    fetchAll: ['logits', ...presentNames],
    fetchLogits: ['logits'],
    past: { type, kvHeads: config.kvHeads, headSize: config.headSize },
  };
  return {
    ...io,
    ...(inputs.includes('position_ids') ? { positionIds: 'position_ids' } : {}),
    ...(inputs.includes('use_cache_branch') ? { useCacheBranch: 'use_cache_branch' } : {}),
  };
}
