/**
 * Every user-facing message of dantinox, built in one place so wording stays consistent and tests can assert
 * with the same builders. Shape: what was wrong, the value received, what is allowed, how to fix it.
 *
 * Sections are grouped by layer; add new builders to the section of the layer that throws them.
 *
 * @packageDocumentation
 */
import { errorText } from './errors.js';
import { type IndexFlags, SHARD_FLAGS } from './scheduler-index.js';

/** Levenshtein distance, for did-you-mean suggestions. */
function editDistance(a: string, b: string): number {
  const dp = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = dp[0] ?? 0;
    dp[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = dp[j] ?? 0;
      dp[j] = Math.min((dp[j] ?? 0) + 1, (dp[j - 1] ?? 0) + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return dp[b.length] ?? 0;
}

/** The closest of `candidates` to `name` (case-insensitive), if it is close enough to be a likely typo. */
export function didYouMean(name: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const c of candidates) {
    const d = editDistance(name.toLowerCase(), c.toLowerCase());
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  return best !== undefined && bestDistance <= Math.max(2, Math.floor(name.length / 3)) ? best : undefined;
}

const list = (names: readonly string[]): string => names.join(', ');
const capitalize = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);

/** The folder whose `results.jsonl` holds the cells of the run (or variant) being measured, and whether it exists. */
export interface CellsStream {
  /** The run's folder, or in a matrix the variant's. */
  readonly dir: string;
  /** Whether `dir/results.jsonl` had been written when the process ended. */
  readonly written: boolean;
}

/** The end of a notice after the process was ended at once: where the cells measured so far are, if anywhere. */
const cellsSoFar = (cells: CellsStream | undefined): string => {
  if (cells === undefined) return '';
  if (!cells.written)
    return ` No cell had been written to ${cells.dir} yet (no results.jsonl there); \`dantinox bench\` with the same flags and --resume measures what is missing.`;
  return ` The cells measured so far are in ${cells.dir}/results.jsonl; \`dantinox report ${cells.dir}\` renders them.`;
};

/** `; only decode at 63` when some skipped depths still fit a decode step, else nothing. */
const onlyDecodeAt = (depths: readonly number[]): string =>
  depths.length > 0 ? `; only decode at ${depths.join(', ')}` : '';

/** Whether `c` is a C0/C1 control character or a line/paragraph separator (unsafe to print as is). */
const isControl = (c: string): boolean => {
  const code = c.charCodeAt(0);
  return code < 0x20 || (code >= 0x7f && code <= 0x9f) || code === 0x2028 || code === 0x2029;
};

/** The first line of a parser's message, at most 200 characters (parsers quote the offending text). */
const clip = (message: string): string => {
  const first = message.slice(0, 1000).split('\n')[0] ?? '';
  const line = [...first.slice(0, 201)].map((c) => (isControl(c) ? '?' : c)).join('');
  return line.length <= 200 ? line : `${line.slice(0, 200)}…`;
};

/** Bytes in GiB with 2 decimals, or in scientific notation when astronomically large. */
const gib = (bytes: number): string => {
  const g = bytes / 2 ** 30;
  return Number.isFinite(g) && g < 1e6 ? `${g.toFixed(2)} GiB` : `${g.toExponential(2)} GiB`;
};

/** Longest excerpt of a user value quoted in a message, in characters. */
const EXCERPT_CHARS = 80;

/**
 * A short, escaped rendering of a user value for a message: JSON form (control characters and binary bytes
 * escaped), cut to {@link EXCERPT_CHARS} characters with the full length stated, so a huge or binary value never
 * floods the terminal.
 */
export function excerpt(value: unknown): string {
  // Only the head of a long string is quoted: never stringify megabytes to show eighty characters.
  const long = typeof value === 'string' && value.length > EXCERPT_CHARS;
  const head = long ? (value as string).slice(0, EXCERPT_CHARS) : value;
  let text: string;
  try {
    text = typeof head === 'bigint' ? `${head}n` : (JSON.stringify(head) ?? String(head));
  } catch {
    text = String(head);
  }
  // JSON leaves these terminal-hostile characters as is: escape them too.
  text = text.replace(
    /[\u007f-\u009f\u2028\u2029\ufffd]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  const total = long ? (value as string).length : text.length;
  if (!long && text.length <= EXCERPT_CHARS) return text;
  return `${text.slice(0, EXCERPT_CHARS)}… (${total} characters in all)`;
}
/** The `code` of a Node system error (`EACCES`, `ENOENT`…), else its message. */
const errorCode = (cause: unknown): string =>
  cause !== null && typeof cause === 'object' && 'code' in cause && typeof cause.code === 'string'
    ? cause.code
    : errorText(cause);
/**
 * What to do about a file that could not be read, from the error's code: a folder where a file is needed
 * (`EISDIR`), a missing path (`ENOENT`, `ENOTDIR`), missing permissions (`EACCES`, `EPERM`).
 */
const readHint = (cause: unknown): string => {
  switch (errorCode(cause)) {
    case 'EISDIR':
      return 'it is a folder; pass the path of the file itself';
    case 'ENOENT':
    case 'ENOTDIR':
      return 'there is no such file; check the path';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied; make it readable or pass a copy';
    default:
      return 'check that the path exists and is readable';
  }
};
/**
 * What to do about a file or folder that could not be written, from the error's code: a file in the way of a
 * folder (`EEXIST`, `ENOTDIR`), a folder in the way of a file (`EISDIR`), a full disk, a read-only file system;
 * permissions otherwise. `flag` is the option that names the path (`--out`).
 */
const writeHint = (cause: unknown, flag: string): string => {
  switch (errorCode(cause)) {
    case 'EEXIST':
    case 'ENOTDIR':
      return `a file is in the way where a folder is needed; move that file or pass another ${flag}`;
    case 'EISDIR':
      return `a folder is in the way where a file is needed; pass another ${flag}`;
    case 'ENOSPC':
      return `no space left on the device; free some space or pass ${flag} on another disk`;
    case 'EDQUOT':
      return `disk quota exceeded; free some space or pass ${flag} on another disk`;
    case 'EROFS':
      return `the file system is read-only; pass ${flag} on a writable one`;
    default:
      return `check that the directory is writable, or pass another ${flag}`;
  }
};
const suggestion = (name: string, candidates: readonly string[]): string => {
  const s = didYouMean(name, candidates);
  return s === undefined ? '' : ` Did you mean "${s}"?`;
};

/** What a JSON value is, for a message: `null`, `an array`, `a number`, `nothing` (undefined)… */
const kindOf = (value: unknown): string => {
  if (value === null) return 'null';
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
};
/** A kind name (`array`, `object`, `record`, `string`, `null`…) as a message says it: `an array`, `an object`… */
const kindName = (kind: string): string => {
  if (kind === 'null') return 'null';
  if (kind === 'record' || kind === 'object') return 'an object';
  if (kind === 'array') return 'an array';
  return `a ${kind}`;
};
/** `a`, `a or b`, `a, b or c`. */
const orList = (items: readonly string[]): string =>
  items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} or ${items.at(-1)}`;

/** Message builders, by layer. */
/** One field of a Hugging Face config.json that disagrees with its ONNX graph. */
export interface HfGraphMismatch {
  /** The config.json key, e.g. `intermediate_size`. */
  readonly key: string;
  /** Its value in config.json. */
  readonly config: string;
  /** What the graph holds instead, e.g. `MLP matrices 32 × 88`. */
  readonly graph: string;
}

export const messages = {
  // ── GGUF export and engines ───────────────────────────────────────────────
  /** A model llama.cpp cannot represent. */
  ggufUnsupported: (what: string): string =>
    `Cannot export to GGUF: llama.cpp cannot represent ${what}. Export a causal decoder with rotary positions, RMSNorm and SwiGLU ("llama") or learned positions, LayerNorm and GELU ("gpt2"), or benchmark this model with the ONNX Runtime engine.`,
  /** A tokenizer the GGUF writer cannot express. */
  ggufTokenizer: (problem: string): string =>
    `Cannot write the tokenizer into GGUF: ${problem}. Pass tokenizer "gpt2" or "bytes", or a byte-level BPE tokenizer.json that fits the model's vocabulary.`,
  /** A block-quantized tensor whose rows do not fill whole blocks. */
  ggufRowNotBlocked: (tensor: string, rowLength: number, type: string, blockSize: number): string =>
    `Cannot write "${tensor}" as ${type}: its rows have ${rowLength} values, not a multiple of the ${blockSize}-value block. Use dtype fp32 or fp16, or a model whose dim and FFN width are multiples of ${blockSize}.`,
  /** Encoded tensor bytes that do not match the declared shape (a bug in the caller). */
  ggufTensorBytes: (tensor: string, bytes: number, ne: readonly number[], type: string): string =>
    `GGUF tensor "${tensor}" has ${bytes} bytes, which does not match ${type} data of shape [${ne.join(', ')}]. Encode it with encodeGgml(type, values).`,
  /** A GGUF file that llama.cpp does not load. */
  ggufRefused: (path: string, cause: unknown): string =>
    `llama.cpp refused the GGUF file "${path}": ${cause instanceof Error ? cause.message : String(cause)}. Write it with exportGguf (or "dantinox export --format gguf") from a model llama.cpp supports, and check that the file is complete.`,
  /** An engine that cannot load a model folder or file. */
  engineLoadFailed: (engine: string, path: string, cause: unknown): string =>
    `${engine} cannot load "${path}": ${cause instanceof Error ? cause.message : String(cause)}. Check that the folder holds config.json, tokenizer.json and the ONNX file of the dtype asked for (onnx/model.onnx for fp32), or use another --engine.`,
  /** An engine asked to run a model source it cannot take. */
  engineNeedsBuiltin: (engine: string, source: string): string =>
    `The ${engine} engine cannot run "${source}": it runs built-in models (--config), which dantinox exports to GGUF on the fly. Use --config, or --engine ort or transformers.js for a Hugging Face folder.`,
  /** A GGUF export asked for a head dtype other than the matrices'. */
  ggufOneDtype: (dtype: string, headDtype: string): string =>
    `The llama.cpp engine stores every matrix of its GGUF file in one dtype (${dtype}); --head-dtype ${headDtype} applies to --engine ort and transformers.js. Drop --head-dtype, or use another engine.`,
  /** A Hugging Face folder whose ONNX graph lacks a canonical weight (not written by exportHfModel). */
  hfWeightNotFound: (folder: string, name: string, dims: readonly number[]): string =>
    `"${folder}" has no float32 initializer "${name}" of shape [${dims.join(', ')}] in onnx/model.onnx: only folders written by exportHfModel / "dantinox export --format hf" (fp32 file) can be converted. Export the built-in model directly instead.`,
  /** `export --model` with options that choose another source or format. */
  exportModelAlone: (): string =>
    'export --model converts a Hugging Face folder to GGUF: drop --config, --weights and --tokenizer (the folder has its config, weights and tokenizer) and --format hf.',
  /** An execution provider given to an engine that runs on the CPU only. */
  engineCpuOnly: (engine: string, provider: string): string =>
    `The ${engine} engine runs on the CPU only; --ep ${provider} applies to --engine ort. Drop --ep or use --engine ort.`,
  // ── the browser target ────────────────────────────────────────────────────
  /** `--browser-path` that is not an executable file. */
  browserPathNotExecutable: (path: string): string =>
    `--browser-path "${path}" is not an executable file. Pass the path of a Chromium or Chrome executable (e.g. /usr/bin/chromium), or drop --browser-path to look for one on PATH.`,
  /** No Chromium found for the browser target. */
  browserNotFound: (names: readonly string[], fallbacks: readonly string[]): string =>
    `--target browser needs Chromium, and none was found: looked for ${list(names)} on PATH${fallbacks.length > 0 ? ` and for ${list(fallbacks)}` : ''}. Install Chromium (e.g. apt-get install chromium) or pass its executable with --browser-path.`,
  /** The browser could not be started or the page failed to load. */
  browserLaunchFailed: (path: string, cause: unknown): string =>
    `Cannot start the browser "${path}": ${errorText(cause)}. Check that it is a Chromium (or Chrome) executable that runs headless here, or pass another with --browser-path.`,
  /** An engine other than ort asked to run in the browser. */
  targetNeedsOrt: (engine: string, target: string): string =>
    `--target ${target} runs the ONNX graph (built-in or a Hugging Face folder's) on onnxruntime-web, so it needs --engine ort, not ${engine}. Use --engine ort with --target browser, or --target node for ${engine}.`,
  /** An execution provider the browser target does not have. */
  browserProvider: (provider: string): string =>
    `--ep ${provider} is not a browser execution provider: --target browser runs wasm (the default; cpu means wasm) or webgpu. Pass --ep wasm or --ep webgpu.`,
  /** WebGPU asked for and the page has no adapter. */
  noWebgpuAdapter: (): string =>
    'The page found no WebGPU adapter (navigator.gpu.requestAdapter() gave none): this browser or machine has no WebGPU. Use --ep wasm.',
  /** A fallback (software) WebGPU adapter refused. */
  fallbackAdapter: (vendor: string, architecture: string): string =>
    `The page's WebGPU adapter (${vendor || 'unknown vendor'} ${architecture || 'unknown architecture'}) is a fallback adapter — a software rasterizer, not a GPU — so a "webgpu" figure would measure the CPU. Use --ep wasm, or pass --force to measure it anyway.`,
  /** Nodes of the browser session that onnxruntime-web placed on another provider than the one asked for. */
  nodesOffProvider: (off: { count: number; total: number; opTypes: string }, provider: string): string =>
    `${off.count} of ${off.total} nodes of the browser session did not run on the requested --ep ${provider}${off.opTypes === '' ? '' : ` (${off.opTypes})`}: onnxruntime-web placed them on another provider, and their time is in every figure of this variant (recorded as nodes_off_provider). Compare with --ep wasm, or read the list to see which operators ${provider} lacks.`,
  /** MFU/MBU asked of a model run in the browser. */
  ceilingsNotInBrowser: (): string =>
    'no ceilings for --target browser: the calibration probes run on onnxruntime-node in this process, not on onnxruntime-web in the page, so a browser run has no measured ceiling to be a fraction of',
  /** onnxruntime-web failed inside the page. */
  pageFailed: (what: string, cause: unknown): string =>
    `onnxruntime-web failed in the browser page while ${what}: ${errorText(cause)}. Rerun with --target node to check the model, or with --verbose for details.`,
  // ── shared ────────────────────────────────────────────────────────────────
  /** An unknown name looked up in a fixed set (preset, task, chart, format…), with an optional how-to-add hint. */
  unknownName: (kind: string, name: string, available: readonly string[], hint?: string): string =>
    `Unknown ${kind} "${name}".${suggestion(name, available)} Available: ${list(available)}.${hint === undefined ? '' : ` ${hint}`}`,
  /** A file that could not be read. */
  cannotRead: (path: string, what: string, cause?: unknown): string =>
    `Cannot read ${what} file "${path}": ${readHint(cause)}.`,
  /** A file whose contents could not be parsed. */
  malformedFile: (path: string, format: string, cause: unknown): string =>
    `"${path}" is not valid ${format}: ${clip(errorText(cause))}. Fix the file or pass another one.`,
  /** A results or chart-data file that is empty (or only whitespace). */
  emptyDataFile: (path: string): string =>
    `"${path}" is empty: it holds no results. Pass a results file written by "dantinox bench" (results.csv, results.json or results.jsonl) or its run folder.`,
  /** A text file (config, validation text, results) that holds a NUL byte. */
  binaryTextFile: (path: string, what: string, offset: number): string =>
    `"${path}" is a binary file, not ${what} text (NUL byte at offset ${offset}). Pass a UTF-8 (or UTF-16 with a byte-order mark) text file.`,
  /** A text file that is not valid UTF-8. */
  invalidUtf8: (path: string, what: string, offset: number): string =>
    `"${path}" is not valid UTF-8 (bad byte at offset ${offset}), so it cannot be read as ${what} text. Convert it to UTF-8 (e.g. \`iconv -f latin1 -t utf-8\`).`,
  /** What building a built-in model is called in memory messages. */
  modelBuild: (dim: number, numBlocks: number, vocabSize: number): string =>
    `Building this model (dim ${dim}, ${numBlocks} blocks, vocabulary ${vocabSize})`,
  /** What one perplexity batch is called in memory messages. */
  perplexityBatch: (batch: number, len: number): string =>
    `A perplexity batch of ${batch} windows × ${len} tokens (--eval-batch-size × --eval-seq-len)`,
  /** What one sweep cell is called in memory messages. */
  sweepCell: (cell: string): string => `Cell ${cell}`,
  /** Perplexity stopped by its time budget. */
  evalTruncated: (scored: number, planned: number, maxCellMs: number): string =>
    `scored ${scored} of ${planned} batches: the next would overrun --max-cell-ms ${maxCellMs} (raise it to score more)`,
  /** A config key given with no value (`max_context:`). */
  emptyConfigValue: (key: string): string =>
    `has no value; give one (e.g. \`${key}: 512\`) or remove the key`,
  /** An empty model config file. */
  emptyModelConfig: (path: string, presets: readonly string[]): string =>
    `Model config "${path}" is empty. Give at least the shape (dim, n_heads, num_blocks, vocab_size), or start from a preset: ${list(presets)}.`,
  /** A model or measurement whose memory estimate exceeds the available memory. */
  doesNotFitInMemory: (what: string, needed: number, available: number, canForce = true): string =>
    `${what} needs about ${gib(needed)} of memory, more than the ${gib(available)} available: use a smaller shape${canForce ? ', or pass --force (library: `force: true`) to try anyway' : ''}.`,
  /** An optional dependency that is not installed. */
  dependencyMissing: (pkg: string, feature: string): string =>
    `${feature} needs the package "${pkg}", which is not installed. Install it with: npm install ${pkg}`,

  // ── profiling ─────────────────────────────────────────────────────────────
  /** A numeric option outside its allowed range, e.g. `seqLen` must be a positive integer. */
  invalidNumberOption: (name: string, value: unknown, allowed: string): string =>
    `\`${name}\` must be ${allowed}, received ${typeof value === 'string' ? excerpt(value) : excerpt(String(value)).slice(1, -1)}.`,
  /** A FLOPs count whose tokens do not fit in the model's context. */
  contextTooLong: (seqLen: number, pastLength: number, maxContext: number): string =>
    `seqLen (${seqLen}) + pastLength (${pastLength}) = ${seqLen + pastLength} tokens exceeds the model's maxContext (${maxContext}). Use a shorter sequence or a config with a larger maxContext.`,
  /** A decode count at a context with no room for the new token. */
  decodeContextTooLong: (context: number, maxContext: number): string =>
    `a decode step at context ${context} needs ${context + 1} positions, more than the model's maxContext (${maxContext}). Use context ≤ ${maxContext - 1}.`,
  /** The seed formula asked for a KV-cache count, which it cannot express. */
  seedFormulaNoCache: (pastLength: number): string =>
    `formula "seed" has no KV-cache mode (the seed always counts a full forward pass), so pastLength must be 0, received ${pastLength}. Use formula "exact" for decode counts.`,
  /** `dantinox flops --logit-positions` above the pass's new tokens. */
  logitPositionsAboveSeqLen: (logitPositions: number, seqLen: number): string =>
    `--logit-positions ${logitPositions} exceeds --seq-len ${seqLen}: a pass computes the logits of at most its ${seqLen} new tokens per sequence. Use --logit-positions from 1 (a generation's prefill) to ${seqLen} (every position), or omit it.`,
  /** The seed formula asked for an LM head over fewer positions than the pass, which it cannot express. */
  seedFormulaAllLogits: (logitPositions: number, seqLen: number): string =>
    `formula "seed" counts the LM head over every position, so logitPositions must be seqLen (${seqLen}), received ${logitPositions}. Use formula "exact" for a prefill that computes fewer logits.`,
  /** A latency sample that is not a finite number. */
  nonFiniteSample: (index: number, value: unknown): string =>
    `sample ${index} is ${String(value)}; statistics need finite numbers. Drop or fix the sample before summarising.`,
  /** Columns of a cluster bootstrap that do not have one value per cluster each. */
  bootstrapColumnsDiffer: (lengths: readonly number[]): string =>
    `The bootstrap's columns have ${lengths.join(', ')} values: give every column one value per cluster (window or item).`,
  /** McNemar counts that are not non-negative integers. */
  badMcnemarCounts: (b: number, c: number): string =>
    `McNemar's test needs the discordant pair counts as non-negative integers, received b = ${b}, c = ${c}.`,

  // ── models: ModelConfig ───────────────────────────────────────────────────
  /** Header of a ModelConfig validation error. */
  invalidModelConfig: (count: number): string =>
    `Invalid model config (${count} problem${count === 1 ? '' : 's'}):`,
  /** A config key that is neither ours nor the seed's. */
  unknownKey: (key: string, known: readonly string[]): string =>
    `unknown field "${key}".${suggestion(key, known)} Allowed fields: ${list(known)} (camelCase or the seed's snake_case).`,
  /** A seed feature the TypeScript runtime does not build. */
  unsupportedFeature: (key: string, value: unknown): string =>
    `${key} = ${excerpt(value)} is not supported by dantinox's runtime (supported: MHA/GQA attention, MLP/MoE FFN, ar/diffusion paradigms); remove it or set it off.`,
  /** Two spellings of one field with different values. */
  conflictingKeys: (from: string, a: unknown, b: unknown): string =>
    `set twice with different values (${excerpt(a)} and ${excerpt(b)} from "${from}"); keep one spelling.`,

  // ── models: weights and safetensors ───────────────────────────────────────
  /** A weight seed that is not a safe integer. */
  invalidSeed: (seed: unknown): string =>
    `seed must be a safe integer, received ${String(seed)}. Pass an integer such as 0.`,
  /** Header of a weight-map validation error. */
  invalidWeights: (count: number): string =>
    `Weights do not match the model config (${count} problem${count === 1 ? '' : 's'}):`,
  /** A tensor the config needs but the weights lack. */
  missingWeight: (dims: readonly number[]): string => `missing tensor, expected shape [${dims.join(', ')}]`,
  /** A tensor with the wrong shape. */
  weightShape: (got: readonly number[], want: readonly number[]): string =>
    `shape [${got.join(', ')}] does not match the config's [${want.join(', ')}]`,
  /** A tensor whose data length does not match its shape. */
  weightLength: (length: number, dims: readonly number[]): string =>
    `holds ${length} values but its shape [${dims.join(', ')}] needs ${dims.reduce((a, b) => a * b, 1)}`,
  /** A tensor the config does not use. */
  extraWeight: (): string => 'unexpected tensor: the config has no weight of this name (wrong config?)',
  /** A malformed safetensors file. */
  badSafetensors: (path: string, problem: string): string =>
    `"${path}" is not a valid safetensors file: ${problem}.`,
  /** A safetensors dtype we cannot convert to float32. */
  unsupportedDtype: (path: string, name: string, dtype: string): string =>
    `"${path}": tensor "${name}" has dtype ${dtype}; supported dtypes are F32, F16 and BF16. Convert the file to float32.`,

  // ── models: inputs, paradigms, tokenizers ─────────────────────────────────
  /** Token ids that are not an Int32Array. */
  tokensNotInt32: (got: string): string =>
    `tokens must be an Int32Array of token ids, received ${got}. Wrap them: Int32Array.from(ids).`,
  /** A batch shape whose fields are not positive integers. */
  badBatchShape: (batch: unknown, seq: unknown): string =>
    `batch shape must have positive integer batch and seq, received { batch: ${String(batch)}, seq: ${String(seq)} }.`,
  /** A token array whose length does not match its shape. */
  tokensLengthMismatch: (length: number, batch: number, seq: number): string =>
    `tokens has ${length} ids but the shape { batch: ${batch}, seq: ${seq} } needs batch × seq = ${batch * seq}.`,
  /** A token id outside the vocabulary. */
  tokenOutOfRange: (index: number, id: number, vocabSize: number): string =>
    `token id ${id} at index ${index} is outside the vocabulary [0, ${vocabSize}). Use ids in [0, ${vocabSize - 1}] or a config with a larger vocabSize.`,
  /** A sequence longer than the model's context. */
  contextExceeded: (tokens: number, maxContext: number, what: string): string =>
    `${what} needs ${tokens} positions but the model's maxContext is ${maxContext}. Use a shorter input or a config with a larger maxContext.`,
  /** A decode state that was already consumed, disposed or made by another model. */
  badDecodeState: (why: string): string =>
    `invalid decode state: ${why}. Pass the state returned by the previous prefill/decodeStep of this model.`,
  /** decodeStep fed a number of tokens different from the batch. */
  decodeTokensMismatch: (length: number, batch: number): string =>
    `decodeStep needs one token per sequence (${batch}), received ${length}.`,
  /** A paradigm asked to run on a model of the other kind. */
  paradigmMismatch: (paradigm: string, modelParadigm: string): string =>
    `the ${paradigm} paradigm cannot run a model built for "${modelParadigm}"; use Paradigm.for(model.config).`,
  /** Loss options out of range. */
  badScoreFrom: (scoreFrom: unknown, scored: number): string =>
    `scoreFrom must be an integer in [0, ${scored - 1}] (so at least one position is scored), received ${String(scoreFrom)}.`,
  /** A generation option out of range. */
  badGenerateOption: (name: string, value: unknown, allowed: string): string =>
    `generate option ${name} must be ${allowed}, received ${String(value)}.`,
  /** An ar loss batch whose rows cannot hold an input and a target. */
  lossRowTooShort: (seq: number): string =>
    `ar loss needs rows of at least 2 tokens (T inputs + 1 target), received rows of ${seq}.`,
  // ── models: ONNX runtime ──────────────────────────────────────────────────
  /** A thread count that is not a positive integer. */
  invalidThreads: (threads: unknown): string =>
    `threads must be a positive integer (intra-op threads of ONNX Runtime), received ${String(threads)}. Omit it to use every available core.`,
  /** A llama.cpp `rowsPerContext` that is not a positive integer. */
  invalidRowsPerContext: (rows: unknown): string =>
    `rowsPerContext must be a positive integer (sequences of every llama.cpp context), received ${String(rows)}. Omit it to make contexts for each call's row count.`,
  /** A llama.cpp KV-cache element type that is not one of those offered. */
  invalidKvCacheType: (type: unknown, allowed: readonly string[]): string =>
    `kvCacheType must be one of ${list(allowed)} (the llama.cpp KV cache's element type), received ${JSON.stringify(type)}. Omit it for f32.`,
  /** Row-batching states whose rows live in different llama.cpp contexts. */
  rowsInOtherContexts: (): string =>
    `their rows are sequences of different llama.cpp contexts (a context's sequences share its KV cache; none can move to another). Load the model with rowsPerContext ≥ the rows of the joined state, so rows prefilled while a state is live take free sequences of its context`,
  /** A graph builder that streamed its weights to disk asked for in-memory bytes. */
  streamedGraphInMemory: (dataPath: string): string =>
    `This graph streamed its weights to ${dataPath}, so it cannot be encoded for an in-memory session. Load it from its model file: write it with write(modelPath, { externalData: true }), where modelPath + "_data" is that file.`,
  /** A streaming graph builder written to another path than the one its weights went to. */
  streamedGraphPath: (dataPath: string, path: string): string =>
    `This graph streamed its weights to ${dataPath}, so it can only be written as ${JSON.stringify(dataPath.replace(/_data$/, ''))} with { externalData: true }, not as ${JSON.stringify(path)}. Write it to that path with externalData on.`,
  /** An ONNX Runtime profile that cannot be parsed. */
  /** An `Identity` graph for the session-overhead probe with impossible counts. */
  badIdentityGraph: (nodes: number, inputs: number, outputs: number): string =>
    `An Identity graph needs positive integer node, input and output counts with nodes ≥ outputs, received nodes ${nodes}, inputs ${inputs}, outputs ${outputs}; pass the kernel, feed and fetch counts of one traced call.`,
  badOrtTrace: (why: string): string =>
    `The ONNX Runtime profile cannot be read: ${why}. Expected the Chrome-trace JSON that a session opened with enableProfiling writes, after at least one session.run.`,
  /** --profile on an engine without an operator profiler. */
  profileUnavailable: (engine: string): string =>
    `profile unavailable: the ${engine} engine has no operator profiler that dantinox can read (only ONNX Runtime writes one); run the variant with --engine ort to see where its time goes.`,
  /** ONNX Runtime wrote no readable profile. */
  ortTraceMissing: (where: string): string =>
    `ONNX Runtime wrote no readable profile in ${where}. The model must be opened with profileFilePrefix and disposed after its calls; check that the temporary folder is writable.`,
  /** A model used after dispose(). */
  modelDisposed: (name: string): string =>
    `model "${name}" was disposed; create a new one with createModel().`,
  /** The inference engine failed (graph rejected, run failed). */
  engineFailed: (engine: string, cause: unknown): string =>
    `${engine} failed: ${errorText(cause)}. This is a dantinox bug if the input passed validation; please report it with the config.`,
  /** A safetensors file without the config needed to rebuild the model. */
  weightsWithoutConfig: (path: string): string =>
    `"${path}" has no "dantinox.config" metadata, so the model config is unknown. Pass { config } to loadModel(), or save the file with saveWeights().`,

  // ── models: Hugging Face folders ──────────────────────────────────────────
  /** A file a Hugging Face model folder must contain is missing. */
  hfMissingFile: (folder: string, file: string, what: string): string =>
    `Hugging Face model folder "${folder}" has no ${file} (${what}). A model folder needs config.json, tokenizer.json and onnx/model.onnx (the transformers.js layout); create one with exportHfModel() or \`optimum-cli export onnx --task text-generation-with-past\`.`,
  /** A config.json whose model_type dantinox does not map. */
  hfUnsupportedModelType: (path: string, type: unknown, supported: readonly string[]): string =>
    `"${path}": model_type ${excerpt(type)} is not supported. Supported model types: ${list(supported)}.`,
  /** A config.json that lacks a field the model type needs. */
  hfMissingConfigField: (path: string, keys: readonly string[], modelType: string): string =>
    `"${path}": a ${modelType} config needs the field ${keys.map((k) => `"${k}"`).join(' or ')}; add it to the file.`,
  /** A config.json field with a value of the wrong kind. */
  hfBadConfigValue: (path: string, key: string, value: unknown, allowed: string): string =>
    `"${path}": ${key === '' ? 'the file' : `field "${key}"`} must be ${allowed}, received ${excerpt(value)}.`,
  /** An explicit head_dim that differs from hidden_size / num_attention_heads. */
  hfHeadDimMismatch: (path: string, headDim: number, dim: number, heads: number): string =>
    `"${path}": head_dim ${headDim} differs from hidden_size / num_attention_heads = ${dim} / ${heads}; dantinox models need head_dim × heads = hidden size.`,
  /** A config.json whose values do not form a valid ModelConfig. */
  hfUnrepresentable: (path: string, problem: string): string =>
    `"${path}" describes an architecture dantinox cannot represent:\n${problem}`,
  /** An ONNX graph whose inputs/outputs do not follow the HF decoder-with-past convention. */
  hfBadDecoderIo: (path: string, problem: string): string =>
    `"${path}" does not follow the Hugging Face decoder-with-past convention: ${problem}. Expected inputs input_ids, attention_mask, optional position_ids and past_key_values.{i}.key/.value for every layer i, and outputs logits and present.{i}.key/.value (export with \`--task text-generation-with-past\`).`,
  /** A config.json that disagrees with the shapes of its ONNX graph. */
  hfConfigGraphMismatch: (
    configPath: string,
    onnxPath: string,
    mismatches: readonly HfGraphMismatch[],
  ): string =>
    `"${configPath}" disagrees with its ONNX graph "${onnxPath}": ${mismatches.map((m) => `${m.key} is ${m.config} but the graph has ${m.graph}`).join('; ')}. Fix config.json to match the graph (or use the config.json the model was exported with); FLOPs and memory figures would otherwise be wrong.`,
  /** An ONNX file that cannot be parsed. */
  hfBadOnnx: (path: string, problem: string): string =>
    `"${path}" is not a readable ONNX model: ${problem}. Re-export the model.`,
  /** An external-data file named by the ONNX model is missing. */
  hfMissingExternalData: (path: string, dataPath: string): string =>
    `"${path}" stores its weights in the external file "${dataPath}", which does not exist. Copy it next to the model file.`,
  /** A tokenizer.json that @huggingface/tokenizers cannot load. */
  hfBadTokenizer: (path: string, cause: unknown): string =>
    `"${path}" is not a tokenizer.json that @huggingface/tokenizers can load: ${errorText(cause)}.`,
  /** A tokenizer that produces ids the model does not have. */
  hfTokenizerTooLarge: (path: string, tokenizerVocab: number, modelVocab: number): string =>
    `"${path}" produces ids up to ${tokenizerVocab - 1}, but the model's vocab_size is ${modelVocab}; use the tokenizer that belongs to this model.`,
  /** ONNX Runtime could not create a session for a graph (`source` says which). */
  sessionFailed: (source: string, cause: unknown): string =>
    `ONNX Runtime cannot load ${source}: ${errorText(cause)}.`,
  /** An execution provider the installed onnxruntime-node does not carry. */
  unsupportedExecutionProvider: (name: string, supported: readonly string[]): string =>
    `execution provider "${name}" is not available in this onnxruntime-node installation; it carries: ${supported.join(', ')}. Choose one of those (cpu is the default), or install a build of onnxruntime-node that bundles "${name}".`,
  /** A built-in architecture that has no Hugging Face layout. */
  hfExportUnsupported: (feature: string): string =>
    `cannot export this model to the Hugging Face layout: ${feature}. Exportable: ar models with learned positions + LayerNorm + a plain MLP (gpt2), or rotary + RMSNorm + SwiGLU with optional GQA and sliding window (llama / mistral), dense MLP, no MoE.`,
  /** A folder that cannot be written during export. */
  hfCannotWrite: (folder: string, cause: unknown): string =>
    `Cannot write the Hugging Face model folder "${folder}": ${errorText(cause)}. Pass a writable folder.`,
  /** A loaded model used after dispose(). */
  hfModelDisposed: (folder: string): string =>
    `the model loaded from "${folder}" was disposed; load it again with loadHfModel().`,
  /** An export of a vocabulary no built-in tokenizer fits, without a tokenizer. */
  exportNoTokenizer: (vocabSize: number): string =>
    `No built-in tokenizer fits a vocabulary of ${vocabSize} (bytes need exactly 256, GPT-2's BPE 50257 or more), so the export would carry a tokenizer the model was not trained with: pass --tokenizer with the model's tokenizer.json (from TypeScript, the tokenizer option).`,
  /** A tokenizer choice that does not fit the model's vocabulary. */
  hfExportTokenizer: (tokenizer: string, needs: number, vocabSize: number): string =>
    `tokenizer "${tokenizer}" needs vocabSize ≥ ${needs}, the model has ${vocabSize}; pass tokenizer 'bytes' (vocabSize ≥ 256), 'gpt2' (≥ 50257) or your own tokenizer.json object.`,

  // ── models: tokenizers and n-grams ────────────────────────────────────────
  /** BPE training on empty text. */
  bpeEmptyText: (source: string): string =>
    `The training text (${source}) is empty: a BPE vocabulary is learned from text; pass a non-empty UTF-8 text.`,
  /** A merge list that names an id the vocabulary does not have yet. */
  bpeBadMerge: (rank: number, left: number, right: number, known: number): string =>
    `BPE merge ${rank} joins ids ${left} and ${right}, but only ids 0–${known - 1} exist before it; each merge may only join the 256 bytes and tokens made by earlier merges.`,
  /** A merge list longer than a vocabulary can hold. */
  bpeVocabTooLarge: (max: number): string =>
    `The BPE merges make more than ${max} ids, the largest vocabulary dantinox holds; use fewer merges (a smaller --vocab-size / vocabSize).`,
  /** An id that a tokenizer's vocabulary does not have, given to decode. */
  unknownTokenId: (id: number, vocabSize: number, tokenizer: string): string =>
    `Token id ${id} is not in the vocabulary of tokenizer "${tokenizer}" (ids 0–${vocabSize - 1}); decode only ids this tokenizer produced.`,
  /** An n-gram fitted on no token. */
  ngramNoTokens: (what: string): string =>
    `The n-gram's ${what} has no token: fit it on a non-empty text (the training text tokenizes to nothing).`,
  /** An n-gram history or token id outside the vocabulary. */
  ngramBadToken: (id: number, vocabSize: number): string =>
    `Token id ${id} is outside the n-gram's vocabulary (ids 0–${vocabSize - 1}); fit the n-gram with the vocabSize of the tokenizer that produced the ids.`,
  /** A training stream too short to cut a dev slice from. */
  ngramDevTooShort: (tokens: number): string =>
    `The n-gram's training text is too short to choose its smoothing: ${tokens} tokens are left once the dev slice (every tenth of 100 blocks) is set aside, and the dev slice has no token to score. Use a longer training text (a few thousand tokens at least), or pass the smoothing's parameters.`,
  /** Held-out text with no token to score. */
  heldOutTooShort: (source: string, tokens: number): string =>
    `The held-out text (${source}) has ${tokens} token${tokens === 1 ? '' : 's'}: its first token is context, so nothing would be scored; pass a held-out text of two tokens or more.`,
  /** A list option that is empty or holds a value outside its choices. */
  badChoiceList: (name: string, values: readonly unknown[], allowed: readonly (string | number)[]): string =>
    `${name} must be a non-empty list of ${allowed.join(', ')}, received [${values.map((v) => excerpt(v)).join(', ')}].`,
  /** Smoothing parameters outside their allowed range. */
  ngramBadParameter: (name: string, value: number | string, allowed: string): string =>
    `n-gram ${name} must be ${allowed}, received ${value}.`,

  // ── benchmarking ──────────────────────────────────────────────────────────
  /** Header of a BenchmarkConfig validation error. */
  invalidBenchmarkConfig: (count: number): string =>
    `Invalid benchmark config (${count} problem${count === 1 ? '' : 's'}):`,
  /** A file the benchmarking layer could not write. */
  benchWriteFailed: (path: string, what: string, cause?: unknown): string =>
    errorCode(cause) === 'ENOSPC'
      ? `Cannot write ${what} to "${path}": no space left on the device, so the incomplete file is removed. Free some space, or pass --out on another disk (outDir in TypeScript), and rerun.`
      : errorCode(cause) === 'EDQUOT'
        ? `Cannot write ${what} to "${path}": disk quota exceeded, so the incomplete file is removed. Free some space, or pass --out on another disk (outDir in TypeScript), and rerun.`
        : `Cannot write ${what} to "${path}": ${writeHint(cause, '--out')} (outDir in TypeScript).`,
  /** A sweep list (`--seq-lens`, `--batch-sizes`) with a value given twice. */
  duplicateSweepValues: (twice: readonly number[]): string =>
    `lists ${[...new Set(twice)].join(', ')} more than once; each value is measured once, so give it once`,
  /** A suite built with no tasks. */
  emptySuite: (): string =>
    'BenchmarkSuite requires at least one task: pass `tasks: [new ThroughputTask(), …]` or use BenchmarkSuite.default().',
  /** A task or chart registered under a name that is taken. */
  duplicatePlugin: (kind: string, name: string): string =>
    `A ${kind} named "${name}" is already registered. Pick another name, or register with { override: true } to replace it.`,
  /** Something given to the task registry that is not a factory under a name. */
  notATaskFactory: (name: string): string =>
    `Cannot register a task as "${name}": pass a non-empty name and a function that returns a BenchmarkTask, e.g. register('my_task', () => new MyTask()).`,
  /** A task factory whose result is not the task it was registered as. */
  badTaskFactory: (name: string, got: unknown): string =>
    `The factory registered as task "${name}" returned ${got === undefined ? 'no task' : `a task named ${JSON.stringify(got)}`}; it must return a BenchmarkTask (with a run method) whose name is "${name}".`,
  /** Two tasks of a suite with the same name. */
  duplicateTaskName: (name: string): string =>
    `Two tasks of the suite are named "${name}": task names are the report's row keys and must be unique. Rename one (e.g. give it a \`name\` option).`,
  /** A sweep cell longer than the model accepts. */
  seqTooLong: (seqLen: number, maxContext: number): string =>
    `seq_len ${seqLen} exceeds the model's maxContext ${maxContext}; remove it from --seq-lens (seqLens) or use a model with a longer context.`,
  /** A cell that ran past its time budget. */
  cellTimeout: (elapsedMs: number, budgetMs: number): string =>
    `cell stopped after ${elapsedMs.toFixed(0)} ms, over its budget --max-cell-ms ${budgetMs} (maxCellMs); raise it or lower --n-measure (nMeasure).`,
  /** A cell not attempted because its first calls predict it would run past the budget. */
  cellPredictedTimeout: (predictedMs: number, budgetMs: number): string =>
    `its warm-up predicts ${predictedMs.toFixed(0)} ms, over --max-cell-ms ${budgetMs} (maxCellMs); raise it to measure this cell.`,
  /** A cell skipped because a smaller cell of the same sweep already failed. */
  cellSkippedAfter: (previous: string): string =>
    `the smaller cell ${previous} of this sweep already failed or ran out of time.`,
  /** A task none of whose cells completed (each cell's reason follows). */
  noCellCompleted: (failedCells: string): string => `no cell completed: ${failedCells}`,
  /** No sequence length of the config fits the model. */
  noUsableSeqLen: (seqLens: readonly number[], maxContext: number): string =>
    `no sequence length in --seq-lens (seqLens: ${seqLens.join(', ')}) fits the model's maxContext ${maxContext}; add a shorter one.`,
  /** Depths of `--depths` that do not fit the model's context, in one line. */
  depthsSkipped: (
    model: string,
    skipped: readonly number[],
    maxContext: number,
    prompt: number,
    decodeOnly: readonly number[],
  ): string =>
    `--depths ${skipped.join(', ')} skipped: ${model} has maxContext ${maxContext} (prefill at depth d needs d + ${prompt} ≤ ${maxContext}, decode d + 1 ≤ ${maxContext})${onlyDecodeAt(decodeOnly)}; use smaller --depths values or a model with a longer context.`,
  /** `--depths` with a task list that does not run the latency task, which times the depths. */
  depthsWithoutLatency: (tasks: readonly string[]): string =>
    `--depths is measured by the latency task, which --tasks ${tasks.join(',')} does not run; add latency to --tasks or drop --depths.`,
  /** Why a `--trace` of an engine without an operator profiler has no kernel events. */
  traceKernelsAbsent: (engine: string): string =>
    `engine ${engine} gives dantinox no kernel profile (ONNX Runtime's enableProfiling is set only on the sessions dantinox opens itself, --engine ort), so this trace holds dantinox's spans only; run --engine ort for kernel events.`,
  /** `bench --trace` could not time the profiler's overhead (the second model did not open, a call failed). */
  profilerOverheadNotMeasured: (variant: string, why: string): string =>
    `--trace: the profiler overhead of ${variant} was not measured: ${why}; the trace and the operator table are written without it (rerun with --trace to measure it).`,
  /** `--trace` could not write a variant's trace (the run's results are unaffected). */
  traceNotWritten: (variant: string, why: string): string =>
    `--trace: no trace.json for ${variant}: ${why}; the results are complete, rerun with --trace to get the trace.`,
  /** A model without `extend`, so no prefill at a non-zero depth. */
  depthPrefillUnavailable: (engine: string): string =>
    `prefill at depth needs Model.extend, which ${engine} does not implement; only decode steps at depth were timed.`,
  /** Perplexity on a model without a tokenizer. */
  perplexityNoTokenizer: (model: string): string =>
    `model "${model}" has no tokenizer and none is built in for its vocabulary; pass \`new PerplexityTask({ tokenizer })\`.`,
  /** An evaluation window longer than the model's context, clamped. */
  evalSeqLenClamped: (evalSeqLen: number, maxContext: number): string =>
    `--eval-seq-len ${evalSeqLen} (evalSeqLen) exceeds the model's maxContext ${maxContext}: perplexity windows use ${maxContext} tokens; set --eval-seq-len ${maxContext} or less to silence this.`,
  /** Validation text shorter than one evaluation window. */
  dataTooShort: (source: string, tokens: number, needed: number): string =>
    `validation text ${source} has ${tokens} tokens, fewer than one window of ${needed}; use a longer text or a smaller --eval-seq-len (evalSeqLen).`,
  /** Token ids the tokenizer produced that the model cannot embed. */
  tokenOutOfVocab: (id: number, vocabSize: number, tokenizer: string): string =>
    `tokenizer "${tokenizer}" produced id ${id}, outside the model's vocabulary [0, ${vocabSize}); use the model's own tokenizer.`,
  /** The note that replaces KV-cache decode metrics for diffusion. */
  decodeNotApplicable: (paradigm: string): string => `not applicable (${paradigm} has no KV-cache decode)`,
  /** A result sink whose hook threw: reported, and the run goes on. */
  sinkFailed: (kind: 'sink' | 'hook', name: string, hook: string, cause: unknown): string =>
    `${kind === 'sink' ? 'result sink' : 'run hook'} "${name}" failed in ${hook}: ${errorText(cause)}; the run goes on, but this ${kind}'s output may be incomplete.`,
  /** A task that threw: logged, and its row records the error. */
  taskFailed: (task: string, error: string): string => `task ${task} failed: ${error}`,
  /** The error of a task rebuilt from a JSONL stream that stopped before the task finished. */
  taskIncomplete: (): string =>
    'incomplete: the run stopped before this task finished (rebuilt from its streamed cells)',
  /** The error of a task the run never started because it was aborted. */
  taskNotRun: (): string => 'not run: the run was aborted',
  /** A task whose run neither returned nor recorded a cell for twice the cell budget. */
  taskHung: (ms: number): string =>
    `it neither returned nor finished a cell for ${ms} ms (twice --max-cell-ms), so it was given up as hung and the run went on; a task must return, and bound its own waits by --max-cell-ms`,
  /** A run stopped by its abort signal. */
  benchAborted: (task: string): string => `aborted during task "${task}" (the run's signal fired)`,
  /** The `interrupted` note of a task row rebuilt from the cells it measured before an abort or a crash. */
  taskInterrupted: (how: 'signal' | 'crash', measured: number): string =>
    `${how === 'signal' ? "interrupted (the run's signal fired)" : 'the process ended'} during this task: the row is built from the ${measured} cell(s) measured before; the rest were not measured`,
  /** A run folder whose results.json cannot be read, read from its stream instead. */
  resultsJsonUnreadable: (json: string, stream: string): string =>
    `"${json}" could not be read (empty, cut short or not a report), so the run was read from its stream "${stream}" instead, which holds every finished cell.`,
  /** A JSONL stream holding more than one run (files concatenated). */
  severalRunsInJsonl: (path: string, runIds: readonly string[]): string =>
    `"${path}" holds ${runIds.length} runs (${list(runIds.map((id) => excerpt(id)))}), not one: it looks like several results.jsonl files concatenated. Split it at each "type":"run" line and load each part on its own.`,
  /** A task the run never reached because the process ended (crash, SIGKILL). */
  taskNeverRan: (): string => 'not run: the process ended before this task',
  /** A report file whose extension we cannot read or write. */
  unknownReportFormat: (path: string): string =>
    `Cannot tell the report format of "${path}" from its extension: use .csv, .json or .jsonl.`,
  /** A report file that does not have the expected structure. */
  malformedReport: (path: string, problem: string): string =>
    `"${path}" is not a dantinox report: ${problem}. Pass a file written by SuiteReport.save().`,
  /** The problem of a JSON file that is not a report at all (for `malformedReport`). */
  reportNotDantinox: (): string => 'no "format": "dantinox-report" with "results"',
  /** The problem of a JSONL stream without its `run` line (for `malformedReport`). */
  reportNoRunLine: (): string => 'no "run" record',
  /** The report as a whole, as a place in a report file. */
  reportItself: (): string => 'the report',
  /** Line `line` (1-based) of a JSONL stream, as a place in a report file. */
  reportLine: (line: number): string => `line ${line}`,
  /** Element `position` (1-based) of a list in a report file, e.g. `result 2` or `cell 3 of result 2`. */
  reportElement: (element: string, position: number, parent?: string): string =>
    parent === undefined ? `${element} ${position}` : `${element} ${position} of ${parent}`,
  /** The result held by a JSONL `task` line, as a place in a report file. */
  reportResultOf: (where: string): string => `the result of ${where}`,
  /** A place in a report file that holds something other than an object, e.g. `result 2 is a string, not an object`. */
  reportNotObject: (where: string, found: unknown): string => `${where} is ${kindOf(found)}, not an object`,
  /**
   * A field of a report file of the wrong kind, e.g. `result 2 has "cells" a string, not an array`; `wanted` are
   * kind names (`string`, `number`, `boolean`, `array`, `object`, `record`, `null`).
   */
  reportFieldKind: (where: string, key: string, found: unknown, wanted: readonly string[]): string =>
    `${where} has "${key}" ${kindOf(found)}, not ${orList(wanted.map(kindName))}`,
  /** A field of a report file outside its allowed values, e.g. `result 2 has "status" "done", not "completed", …`. */
  reportFieldValue: (where: string, key: string, found: unknown, allowed: readonly unknown[]): string =>
    `${where} has "${key}" ${typeof found === 'string' ? excerpt(found) : kindOf(found)}, not ${orList(allowed.map((v) => excerpt(v)))}`,
  /** A required field missing from a report file, e.g. `cell 1 of result 2 has no "phase"`. */
  reportFieldMissing: (where: string, key: string): string => `${where} has no "${key}"`,
  /** Any other problem zod found with a field of a report file. */
  reportFieldInvalid: (where: string, key: string, problem: string): string =>
    key === ''
      ? `${where} is invalid: ${clip(problem)}`
      : `${where} has an invalid "${key}": ${clip(problem)}`,
  /** A result or cell of a report file without a task name. */
  reportNoTaskName: (where: string): string => `${where} has no "task" name`,
  /** A JSONL `cell` line without a task name. */
  reportCellWithoutTask: (where: string): string => `${where} is a cell without a "task" name`,
  /** A metric descriptor of a report file without one of its string fields. */
  reportNoString: (where: string, key: string): string => `${where} has no string "${key}"`,
  /** A failed or skipped result of a report file that does not say why. */
  reportStatusWithoutError: (where: string, status: string): string =>
    `${where} is "${status}" without an "error"`,
  /** A completed result of a report file that holds an error. */
  reportCompletedWithError: (where: string): string => `${where} is completed but has an "error"`,

  // ── efficiency: calibration, MFU, MBU ─────────────────────────────────────
  /** MFU/MBU of a run measured without ceilings. */
  noCeilings: (): string =>
    'no calibrated ceilings for this run (run "dantinox calibrate", or pass a calibration to the suite)',
  /** MFU of a dtype the calibration has no GEMM ceiling for. */
  noGemmCeiling: (source: string, dtype: string, known: readonly string[]): string =>
    `no ${source} GEMM ceiling for dtype ${dtype} (ceilings exist for: ${known.length > 0 ? list(known) : 'none'}); rerun "dantinox calibrate --recalibrate" with an engine that runs ${dtype}`,
  /** MBU without a bandwidth ceiling. */
  noBandwidthCeiling: (source: string): string =>
    `no ${source} memory-bandwidth ceiling (the GEMV and copy probes did not run)`,
  /** MFU/MBU of a cell without a positive call time. */
  noCallTime: (): string => 'the cell has no positive mean call time',
  /** A calibration cache file that cannot be used (warning; the machine is recalibrated). */
  badCalibrationCache: (path: string, problem: string): string =>
    `Ignoring the calibration cache "${path}" (${problem}); recalibrating and overwriting it.`,
  /** The theoretical peak cannot be computed. */
  noTheoreticalPeak: (missing: string): string =>
    `theoretical peak unknown: ${missing} (only calibrated ceilings are used)`,
  // ── benchmarking: compare and history ─────────────────────────────────────
  /** Two sides of a comparison that are different variants, without `--allow-different`. */
  compareDifferentVariants: (differences: string): string =>
    `The sides are different variants (${differences}): a difference there would read as a regression. Compare runs of one variant, or pass --allow-different to compare them on purpose (the report then lists these differences).`,
  /** Runs of one side of a comparison (or earlier runs) that are not repeats of one variant. */
  compareRunsNotRepeats: (what: string, differences: string): string =>
    `The ${what} are not repeated runs of one variant (${differences}). Give each side runs of the same variant: model, weights, dtype and quantization plan, engine, threads and machine.`,
  /** A variant of the baseline matrix that a candidate does not have. */
  variantNotInCandidate: (variant: string, candidate: string): string =>
    `variant ${variant === '' ? '(a plain run)' : variant} is not in ${candidate}: not compared.`,
  /** Two sides without a variant in common. */
  noVariantInCommon: (): string =>
    'The sides have no variant in common: compare a matrix folder with a matrix folder of the same axes, or a run with a run.',
  /** A comparison side without runs. */
  compareNoRuns: (side: string): string =>
    `The ${side} side of the comparison has no run. Give at least one run per side.`,
  /** A results file that parses but holds no task results. */
  reportHasNoResults: (path: string): string =>
    `"${path}" holds no results (no task finished). Pass a run written by "dantinox bench" that measured at least one task.`,
  /** A history path that is a directory. */
  historyIsDirectory: (path: string): string =>
    `History file "${path}" is a directory. Pass a file path such as ${path.replace(/\/+$/, '')}/results.duckdb.`,
  /** `@duckdb/node-api` could not be loaded. */
  historyNeedsDuckdb: (cause: unknown): string =>
    `The results history needs the @duckdb/node-api package, which could not be loaded (${cause instanceof Error ? cause.message : String(cause)}). Reinstall dependencies with "npm ci".`,
  /** Another process holds the history file past the wait. */
  historyLocked: (path: string, waitedMs: number, cause: unknown): string =>
    `History file "${path}" is in use by another process (waited ${Math.round(waitedMs / 1000)} s): ${cause instanceof Error ? cause.message.replace(/ See also .*/, '') : String(cause)}. Wait for that process to finish, or write to another file.`,
  /** A history path that is not a DuckDB file. */
  historyUnreadable: (path: string, cause: unknown): string =>
    `Cannot open history file "${path}": ${cause instanceof Error ? cause.message : String(cause)}. Pass a DuckDB file written by "dantinox history add" or "bench --history", or a new path.`,
  /** A new history file that could not be created (a full disk, a read-only or missing folder); none is left. */
  historyNotCreated: (path: string, cause: unknown): string =>
    `Cannot create history file "${path}": ${clip(errorText(cause))}. ${/no space left|quota/i.test(errorText(cause)) ? 'No space left on its disk: free some space or pass --history a path on another disk' : 'Check that its folder exists and is writable, or pass --history another path'}; no file was left there.`,
  /** A history file to read that does not exist. */
  historyMissing: (path: string): string =>
    `There is no history file "${path}". Add runs to it first with "dantinox history add <run dirs…> --history ${path}" or "bench --history ${path}", or pass --history the file they were added to.`,
  /** A history file cut short or with bytes overwritten, as DuckDB found it. */
  historyDamaged: (path: string, cause: unknown): string =>
    `History file "${path}" is damaged (cut short or overwritten): ${clip(errorText(cause))}. Keep it aside and pass --history a new path; the runs' folders can be added to the new file with "dantinox history add <run dirs…> --history <new file>".`,
  /** DuckDB failed on a history file for another reason than damage. */
  historyFailed: (path: string, cause: unknown): string =>
    `DuckDB failed on history file "${path}": ${clip(errorText(cause))}. Check that its disk has space and the file is writable, or pass --history another path.`,
  /** A DuckDB database written by another program given as a history. */
  historyForeign: (path: string, tables: readonly string[]): string =>
    `"${path}" is a DuckDB database of another program (tables ${list(tables.slice(0, 5))}${tables.length > 5 ? ', …' : ''}; no dantinox_schema table), not a dantinox history, and dantinox does not add its tables to it. Pass --history a new path (created when missing) or a file written by "dantinox history add" or "bench --history".`,
  /** An empty DuckDB database (no tables at all) opened to read a history from. */
  historyEmpty: (path: string): string =>
    `History file "${path}" is an empty DuckDB database: no run was ever added to it. Add runs first with "dantinox history add <run dirs…> --history ${path}" or "bench --history ${path}", or pass --history the file they were added to.`,
  /** A history file of a newer schema. */
  historyTooNew: (path: string, found: number, supported: number): string =>
    `History file "${path}" has schema version ${found}; this dantinox reads versions up to ${supported}. Upgrade dantinox, or use another file.`,
  /** An older history file opened read-only. */
  historyNeedsMigration: (path: string, found: number, target: number): string =>
    `History file "${path}" has schema version ${found} and needs migrating to ${target}; open it once for writing (e.g. "dantinox history add") to migrate it.`,
  /** A report without run id given to the history. */
  historyRunWithoutId: (): string =>
    'This report has no run id, so it cannot be added to a history. Add runs written by "dantinox bench" (results.json or results.jsonl), which carry their run id.',
  /** A run id not in the history. */
  historyUnknownRun: (path: string, runId: string): string =>
    `Run "${runId}" is not in history file "${path}". List the runs with "dantinox history list --history ${path}".`,
  /** `history trend` of a metric no run has. */
  historyNoTrend: (path: string, metric: string): string =>
    `No run in "${path}" has a value of "${metric}" (with these filters). Check the key with "dantinox history show <run>"; cell metrics such as p99_ms need --cell <id>.`,
  /** `--compare-last` without `--history`. */
  compareLastNeedsHistory: (): string =>
    '--compare-last compares with the previous run in a results history: add --history <file.duckdb>.',
  /** `--compare-last` when the history has no earlier run of the model on this machine. */
  noPreviousRun: (path: string): string =>
    `No earlier run of this variant on this machine in "${path}": nothing to compare with yet (this run is the baseline of the next one).`,
  /** `--compare-last` found an earlier run of the same model, but of another variant. */
  previousRunDiffers: (runId: string, differences: string): string =>
    `The last run of this model, ${runId}, is another variant (${differences}): not compared, since a difference in these would read as a regression. Compare them on purpose with \`dantinox compare <folder> <folder> --allow-different\`.`,
  /** A `--threshold` that is not a percentage. */
  badThreshold: (value: string): string =>
    `--threshold must be a percentage ≥ 0 such as 5% or 2.5, received ${JSON.stringify(value)}.`,
  /** A `--noise-floor` that is not a percentage. */
  badNoiseFloor: (value: string): string =>
    `--noise-floor must be a percentage ≥ 0 such as 3% or 2.5 (the largest change two runs of the same code show), received ${JSON.stringify(value)}.`,
  /** `--noise-floor` when no comparison has one run per side. */
  noiseFloorUnused: (): string =>
    '--noise-floor is not used: no comparison has one run per side, so the spread of the runs decides (the floor is for one run per side).',
  /** `compare --history` when no comparison has one run per side, or a `--noise-floor` decides instead. */
  historyUnused: (floorGiven: boolean): string =>
    floorGiven
      ? '--history is not used: --noise-floor decides one-run comparisons; leave it out to learn the noise from the history.'
      : '--history is not used: no comparison has one run per side, so the spread of the runs decides (the history is for one run per side).',
  /** `compare --history` found fewer than two earlier runs of a baseline's variant. */
  historyTooFewEarlierRuns: (baseline: string, found: number): string =>
    `The history holds ${found} earlier run${found === 1 ? '' : 's'} of ${baseline}'s variant on its machine, and its noise needs at least 2: record more runs (bench --history), or give --noise-floor.`,
  /** `compare` given fewer than two runs. */
  compareNeedsTwoRuns: (): string =>
    'compare needs a baseline and a candidate: "dantinox compare BASE HEAD", or repeated runs "dantinox compare BASE1 BASE2 BASE3 -- HEAD1 HEAD2 HEAD3".',
  /** `compare A --` or `compare -- B`: one side of the `--` is empty. */
  compareEmptySide: (side: 'baseline' | 'candidate'): string =>
    side === 'baseline'
      ? 'compare: no baseline run before "--". Put the baseline runs before it and the candidate runs after it: "dantinox compare BASE1 BASE2 -- HEAD1 HEAD2".'
      : 'compare: no candidate run after "--". Put the baseline runs before it and the candidate runs after it: "dantinox compare BASE1 BASE2 -- HEAD1 HEAD2".',
  /** `compare` given `--` twice. */
  compareTwoSeparators: (): string =>
    'compare takes one "--" between the baseline runs and the candidate runs, received several. Compare one pair of sides per command.',
  /** A folder given to `compare` with neither results nor run folders. */
  runFolderEmpty: (path: string): string =>
    `"${path}" holds no results file and no run folder. Pass a run directory written by "dantinox bench --out <dir>", its results file, or a folder of such run directories (repeated runs).`,
  /** An unknown `--format` of `compare`. */
  unknownComparisonFormat: (value: string, allowed: readonly string[]): string =>
    `--format must be one of ${allowed.join(', ')}, received ${JSON.stringify(value)}.`,
  // ── benchmarking: matrices, shards, merge ─────────────────────────────────
  /** A matrix axis with no value (`--threads ""`, `threads: []`). */
  matrixEmptyAxis: (flag: string, example: string): string =>
    `${flag} lists no value: give at least one, separated by commas (e.g. ${flag} ${example}), or leave it out.`,
  /** A matrix axis value that is not allowed. */
  matrixBadValue: (flag: string, value: string, allowed: readonly string[]): string =>
    `${flag} "${value}" is not allowed: expected ${allowed.length === 1 ? allowed[0] : `one of ${list(allowed)}`} (a comma-separated list gives several variants).`,
  /** A value listed twice on one matrix axis. */
  matrixDuplicateValue: (flag: string, value: string): string =>
    `${flag} lists "${value}" twice: each value of a matrix axis is one variant and must appear once.`,
  /** A `--bench-config` file that sets nothing. */
  /** `--min-measure-ms` above a non-zero `--max-measure-ms`. */
  measureCapBelowMinimum: (min: number, max: number): string =>
    `--min-measure-ms ${min} is above --max-measure-ms ${max}: a cell cannot stop timing before its minimum. Lower --min-measure-ms, raise --max-measure-ms, or pass --max-measure-ms 0 (no cap).`,
  benchConfigEmpty: (path: string): string =>
    `--bench-config ${path} sets nothing (the file is empty): write the settings into it (e.g. "seq_lens: [128, 256]" or a matrix: section), or leave --bench-config out to run the defaults.`,
  /** The same axis given twice to a matrix. */
  matrixAxisTwice: (axis: string): string =>
    `The matrix axis "${axis}" is given twice: list all its values in one place (a flag overrides the matrix: section of --bench-config).`,
  /** An `exclude:` entry with no axis. */
  matrixEmptyExclude: (entry: number): string =>
    `matrix.exclude entry ${entry} is empty: give the axis values to leave out, e.g. { config: small, dtype: q8 }.`,
  /** An `exclude:` entry naming an axis or value the matrix does not have. */
  matrixBadExclude: (
    entry: number,
    axis: string,
    value: string,
    values: readonly string[],
    axes: readonly string[],
  ): string =>
    values.length === 0
      ? `matrix.exclude entry ${entry} names the axis "${axis}", which this matrix does not vary; its axes are: ${list(axes)}.`
      : `matrix.exclude entry ${entry} names ${axis}: ${value}, which is not a value of that axis (${list(values)}). Fix the typo or remove the entry.`,
  /** Every combination of a matrix is excluded. */
  matrixAllExcluded: (combinations: number): string =>
    `The matrix's exclude: entries leave out all ${combinations} combination(s): nothing would run. Remove or narrow an exclude entry.`,
  /** Two variants of a matrix would get the same id. */
  variantIdCollision: (id: string, a: string, b: string): string =>
    `Two variants would share the id "${id}" (${a} and ${b}): ids are built from preset names and file or folder names without extension. Rename one of the files or folders.`,
  /** A malformed `matrix:` section of a benchmark config file. */
  badMatrixSection: (path: string, where: string, problem: string, keys: readonly string[]): string =>
    `${path}: ${where}: ${problem}. The matrix: section takes the axes ${list(keys)}, each a value or a list (e.g. threads: [1, 2]), and exclude: [{ axis: value }, …].`,
  /** A shard without a shared output folder. */
  shardWithoutOut: (): string =>
    'A sharded run needs --out <dir> on storage every shard shares: each shard writes <dir>/shard-<i>-of-<n>, and "dantinox merge <dir> --out <merged>" combines them.',
  /** --resume without the folder to resume. */
  resumeWithoutOut: (): string =>
    '--resume needs --out <dir>: the folder of the run to continue (the same command, the same --out).',
  /** A malformed `--shard`. */
  badShard: (text: string, flags: IndexFlags = SHARD_FLAGS): string =>
    `${capitalize(flags.noun)} "${text}" is not valid: write i/n with 0 ≤ i < n (0-based, like JOB_COMPLETION_INDEX), e.g. ${flags.one} 0/4 … ${flags.one} 3/4.`,
  /** A scheduler variable that is not a shard index. */
  badShardVariable: (name: string, value: string, flags: IndexFlags = SHARD_FLAGS): string =>
    `${name}="${value}" is not a ${flags.noun} index: expected a non-negative integer (set by the scheduler). Unset it, or pass ${flags.one} i/n explicitly.`,
  /** A shard index from the environment without a shard count. */
  shardCountMissing: (variable: string, index: number, flags: IndexFlags = SHARD_FLAGS): string =>
    variable === 'JOB_COMPLETION_INDEX'
      ? `JOB_COMPLETION_INDEX=${index} is set but the number of ${flags.noun}s is not: pass ${flags.count} <n> (the Job's completions), or ${flags.one} i/n.`
      : `${variable}=${index} is set but SLURM_ARRAY_TASK_COUNT is not: pass ${flags.count} <n> (the array size), or ${flags.one} i/n.`,
  /** A Slurm array task id outside 0…count−1 once the minimum is subtracted and divided by the step. */
  slurmIndexOutOfRange: (
    id: number,
    min: number,
    count: number,
    step = 1,
    flags: IndexFlags = SHARD_FLAGS,
  ): string =>
    `${step === 1 ? `SLURM_ARRAY_TASK_ID=${id} − SLURM_ARRAY_TASK_MIN=${min}` : `(SLURM_ARRAY_TASK_ID=${id} − SLURM_ARRAY_TASK_MIN=${min}) / SLURM_ARRAY_TASK_STEP=${step}`} is not in 0…${count - 1} (${count} ${flags.noun}(s), from ${flags.count} or SLURM_ARRAY_TASK_COUNT): submit one task per ${flags.noun}, e.g. sbatch --array=0-${Math.max(0, count - 1)}, or pass ${flags.count} <n> equal to the array size.`,
  /** A Slurm array whose ids are not evenly spaced (a list such as 1,2,7), so an id says no shard index. */
  slurmArrayUneven: (
    id: number,
    array: {
      readonly min: number;
      readonly max: number | undefined;
      readonly step: number;
      readonly count: number | undefined;
    },
    flags: IndexFlags = SHARD_FLAGS,
  ): string =>
    `SLURM_ARRAY_TASK_ID=${id} is not on an evenly spaced array (SLURM_ARRAY_TASK_MIN=${array.min}, SLURM_ARRAY_TASK_MAX=${array.max ?? 'unset'}, SLURM_ARRAY_TASK_STEP=${array.step}, SLURM_ARRAY_TASK_COUNT=${array.count ?? 'unset'}), so it names no ${flags.noun}: submit a range such as sbatch --array=0-3 or --array=1-7:2 (ids min, min + step, …, max are ${flags.noun}s 0, 1, …), or pass ${flags.one} i/n.`,
  /** `--shards` with no shard index anywhere. */
  shardsWithoutIndex: (count: number, flags: IndexFlags = SHARD_FLAGS): string =>
    `${flags.count} ${count} needs a ${flags.noun} index: run under a Kubernetes Indexed Job (JOB_COMPLETION_INDEX) or a Slurm array, or pass ${flags.one} i/${count}.`,

  /** A path given to merge that holds neither shard nor client folders. */
  notAMergeFolder: (dir: string): string =>
    `"${dir}" is not a folder to merge: it has no readable matrix.json or load-client.json and no sub-folder with one. Pass the --out folder of a sharded "dantinox bench" or "dantinox load" (or its shard-<i>-of-<n> folders), or of a "dantinox load --client" point (or its client-<i>-of-<n> folders).`,
  /** A folder given to merge or resume that holds no matrix. */
  notAMatrixFolder: (dir: string): string =>
    `"${dir}" is not a matrix folder: it has no readable matrix.json and no sub-folder with one. Pass the --out folder of a "dantinox bench" matrix run, or its shard-<i>-of-<n> folders.`,
  /** Two folders of different matrices given to one merge or resume. */
  matrixMismatch: (a: string, b: string): string =>
    `"${a}" and "${b}" hold runs of different matrices (axes, excludes, benchmark config or tasks differ): merge or resume only the folders of one command.`,
  /** A variant found in two folders of one merge. */
  duplicateShard: (id: string, dirs: readonly string[]): string =>
    `Variant "${id}" is in more than one folder (${list(dirs)}): each shard must be merged once. Leave the duplicate folder out.`,
  /** A variant whose folder has no finished results. */
  variantNotFinished: (id: string, dir: string, state: string, noun = 'variant'): string =>
    state === 'missing'
      ? `${noun} ${id}: no results in ${dir} (the shard never ran it)`
      : `${noun} ${id}: unfinished in ${dir}/${id} (cut short by Ctrl-C, SIGTERM or the end of its process: its ${noun === 'variant' ? 'rows rest on part of the cells' : 'numbers rest on part of its requests'}; rerun that shard with --resume)`,
  /** Variants that no folder of a merge was responsible for. */
  shardsMissing: (ids: readonly string[], shards: readonly string[], noun = 'variant'): string =>
    `${shards.length > 0 ? `missing shard folder(s) ${list(shards)}` : 'missing folder(s)'}: ${noun}s ${list(ids)}`,
  /** A merge with missing variants, without --allow-partial. */
  mergeIncomplete: (problems: readonly string[], flags: IndexFlags = SHARD_FLAGS): string =>
    `The merge is incomplete: ${problems.join('; ')}. ${flags.noun === 'shard' ? 'Run the missing shards (or rerun with --resume)' : "Run the point's clients again, all of them at a new --start-at (a point's clients start together)"}, or pass --allow-partial to merge what exists.`,
  /** `dantinox merge --out` naming one of the folders being merged. */
  mergeIntoSource: (out: string): string =>
    `--out "${out}" is one of the folders being merged: write the merged run to a new folder, e.g. --out ${out.replace(/[\\/]+$/, '')}-merged.`,
  /** --resume into a folder of another matrix. */
  resumeMismatch: (dir: string): string =>
    `--resume: "${dir}" holds a run of a different matrix (axes, excludes, benchmark config or tasks differ). Rerun with the same flags as that run, or choose another --out.`,
  /** A `repeat` that is not an integer ≥ 1. */
  badRepeat: (value: unknown): string =>
    `--repeat ${String(value)} is not allowed: give the number of runs of each variant, an integer ≥ 1 (e.g. --repeat 5), or leave it out for one run.`,
  /** `--repeat` with `--shard`. */
  repeatWithShard: (): string =>
    '--repeat cannot be combined with --shard/--shards: a shard runs on its own node, so rounds interleaved across shards would not share a machine state. Run --repeat N on one machine, or repeat the sharded command into --out <dir>/run-<i> folders.',
  /** --resume of a repeated run without --repeat, or of a single run with it. */
  resumeRepeatMismatch: (dir: string, repeated: boolean): string =>
    repeated
      ? `--resume: "${dir}" holds repeated runs (run-1/, run-2/, …) but --repeat was not given: resume it with the same --repeat N as that run.`
      : `--resume: "${dir}" holds a single run (results files at its top), not repeated runs: resume it without --repeat, or choose another --out.`,
  /** --resume of a matrix into a folder holding a single run, or of a single run into a matrix folder. */
  resumeLayoutMismatch: (dir: string, folderHolds: 'single' | 'matrix'): string =>
    folderHolds === 'single'
      ? `--resume: "${dir}" holds a single run (results files at its top, no matrix.json), but this command is a matrix (several --config/--model/--dtype/--threads/--engine/--paradigm values, or --shard): resume it with that run's one value per flag, or write the matrix to another --out.`
      : `--resume: "${dir}" holds a matrix run (matrix.json and a folder per variant), but this command is a single run: resume it with the same matrix flags as that run (e.g. --dtype fp32,q8), or choose another --out.`,
  /**
   * --resume into a single run measured otherwise: each difference names its flag (`--dtype`, `--seq-lens`…), the
   * folder's value and the command's.
   */
  resumeRunMismatch: (
    dir: string,
    differences: readonly { readonly flag: string; readonly there: string; readonly here: string }[],
  ): string =>
    `--resume: "${dir}" holds a run measured otherwise (${differences.map((d) => `${d.flag} ${d.there} there, ${d.here} in this command`).join('; ')}), so nothing of it can be reused. Resume it with the same flags as that run, write this run to another --out, or pass --force instead of --resume to replace it.`,
  /** Matrix variants a stopped run did not reach. */
  variantsNotRun: (ids: readonly string[]): string =>
    `Not run (stopped): ${ids.join(', ')}. Rerun the same command with --resume to measure them.`,

  // ── visualization ─────────────────────────────────────────────────────────
  /** A chart data row that is not an object. */
  badChartFileRow: (path: string, where: string, row: unknown): string =>
    `"${path}": ${where} is ${row === null ? 'null' : Array.isArray(row) ? 'an array' : typeof row}, not a row object. Each row must be an object of column values, such as {"model": "tiny", "peak_tps": 1200}.`,
  /** A row of chart data given in code that is not an object. */
  badChartRow: (index: number, row: unknown): string =>
    `Chart data row ${index} is ${row === null ? 'null' : Array.isArray(row) ? 'an array' : typeof row}, not an object. Pass row objects such as { model: 'tiny', peak_tps: 1200 }.`,
  /** Chart data that is neither rows nor a table. */
  badChartData: (data: unknown): string =>
    `Chart data must be an array of row objects, an arquero table or a .csv/.json/.jsonl path; received ${data === null ? 'null' : typeof data}.`,
  /** A chart data file with an extension we cannot read. */
  unsupportedDataFile: (path: string): string =>
    `Cannot read chart data from "${path}": use a .csv, .json (array of rows) or .jsonl file.`,
  /** A series column that no row has. */
  unknownSeriesColumn: (column: string, columns: readonly string[]): string =>
    `Series column "${column}" is not in the data.${suggestion(column, columns)} Columns: ${list(columns)}.`,
  /** A render size or scale out of range. */
  badRenderNumber: (name: string, value: unknown, max: number): string =>
    `Render option \`${name}\` must be a number in (0, ${max}], received ${String(value)}.`,
  /** Data that lacks the columns a chart needs. */
  chartMissingColumns: (
    chart: string,
    missing: readonly string[],
    empty: readonly string[],
    columns: readonly string[],
    rows: number,
  ): string =>
    [
      `Chart "${chart}" cannot be drawn from this data (${rows} row${rows === 1 ? '' : 's'}):`,
      missing.length > 0 ? ` missing column${missing.length === 1 ? '' : 's'} ${missing.join(', ')};` : '',
      empty.length > 0 ? ` no values in ${empty.join(', ')};` : '',
      ` columns present: ${columns.length > 0 ? list(columns) : '(none)'}.`,
    ].join(''),
  /** Data that passes the column check but has nothing to draw. */
  chartNothingToDraw: (chart: string, reason: string): string =>
    `Chart "${chart}" has nothing to draw: ${reason}.`,
  /** A comparison chart given a single series. */
  chartSingleSeries: (chart: string, series: string, what: string): string =>
    `Chart "${chart}" is trivial with one variant (${series}): ${what} compares several, and one point would look like a finding. Measure several variants (e.g. --threads 1,2 or --config tiny,small) to draw it.`,
  /** A line chart whose x axis would hold a single value. */
  chartSingleX: (chart: string, axis: string, value: string, remedy: string): string =>
    `Chart "${chart}" has a single ${axis} (${value}): a line needs two or more to show a change, and one point would look like a finding. ${remedy}`,
  /** A chart option with a bad value. */
  badChartOption: (chart: string, option: string, value: unknown, allowed: string): string =>
    `Chart "${chart}": option \`${option}\` = ${excerpt(value)} is invalid; allowed: ${allowed}.`,
  /** A class given to the chart registry that is not a chart. */
  notAChart: (what: string): string =>
    `Cannot register ${what} as a chart: it must be a class extending Chart with a non-empty static \`name\`.`,
  /** Output files that already exist. */
  outputExists: (paths: readonly string[]): string =>
    `Refusing to overwrite existing file${paths.length === 1 ? '' : 's'} ${list(paths.map((p) => `"${p}"`))}. Pass another \`runName\`, another \`outDir\`, or \`overwrite: true\`.`,
  /** A run name that cannot be used in a file name. */
  badRunName: (name: string): string =>
    `Run name "${name}" cannot be used in file names: use letters, digits, ".", "_" and "-" only (at most 100 characters).`,
  /** A font file the PNG renderer needs but cannot find. */
  fontMissing: (path: string): string =>
    `The PNG renderer needs the font file "${path}", which does not exist; without it resvg draws no text at all. Reinstall the "dejavu-fonts-ttf" package (npm ci) or pass \`fontFiles\`.`,
  /** A browser bundle the HTML report inlines but cannot find. */
  bundleMissing: (pkg: string, path: string): string =>
    `The HTML report inlines ${pkg} from "${path}", which does not exist. Reinstall dependencies with npm ci.`,
  /** Rendering a spec with vega failed. */
  renderFailed: (chart: string, cause: unknown): string =>
    `Rendering chart "${chart}" failed: ${errorText(cause)}.`,
  /** A file or directory that could not be written. */
  cannotWrite: (path: string, cause: unknown): string =>
    `Cannot write "${path}": ${clip(errorText(cause))}; ${writeHint(cause, '--out')}.`,
  /** An HTML report without any run. */
  reportNoRuns: (): string => 'An HTML report needs at least one run with rows; received none.',

  // ── serving: dantinox serve ───────────────────────────────────────────────
  /** A request body that is not a JSON object. */
  serveBodyNotJson: (detail: string): string =>
    `The request body is not a JSON object (${clip(detail)}). Send a JSON object with Content-Type: application/json, e.g. {"prompt": "Hello", "max_tokens": 16}.`,
  /** A request body over the size limit. */
  serveBodyTooLarge: (limitBytes: number): string =>
    `The request body is larger than ${limitBytes} bytes, the most this server reads. Send a shorter prompt.`,
  /** A request field that failed validation. */
  serveInvalidField: (field: string, problem: string): string =>
    `Invalid request field "${field === '' ? '(body)' : field}": ${clip(problem)}. Fix that field and send the request again.`,
  /** A field of the API this server does not implement with the given value. */
  serveUnsupportedField: (field: string, value: unknown, allowed: string): string =>
    `Request field "${field}" = ${excerpt(String(value))} is not supported by dantinox serve; allowed: ${allowed}.`,
  /** A request naming a model this server does not serve. */
  serveUnknownModel: (model: string, served: string): string =>
    `The model ${excerpt(model)} is not served here; this server serves "${served}" (see GET /v1/models). Pass "model": "${served}" or leave it out.`,
  /** A path this server does not have. */
  serveUnknownPath: (method: string, path: string): string =>
    `No route ${method} ${excerpt(path)}. Routes: POST /v1/completions, POST /v1/chat/completions, GET /v1/models, GET /health, GET /metrics, POST /tokenize, POST /detokenize.`,
  /** A known path asked with the wrong method. */
  serveWrongMethod: (method: string, path: string, allowed: string): string =>
    `${method} is not allowed on ${path}; use ${allowed}.`,
  /** The queue is full. */
  serveQueueFull: (maxQueue: number): string =>
    `The server's queue is full (${maxQueue} requests waiting, --max-queue): retry later, or start the server with a larger --max-queue.`,
  /** The server is shutting down. */
  serveShuttingDown: (): string =>
    'The server is shutting down and accepts no new requests; in-flight requests are being finished.',
  /** A prompt with no token. */
  serveEmptyPrompt: (): string => 'The prompt has no token: send a non-empty "prompt" (or "messages").',
  /** A prompt as long as the context or longer. */
  servePromptTooLong: (tokens: number, maxContext: number): string =>
    `The prompt has ${tokens} tokens but the model's context holds ${maxContext} (maxContext), with room for at least one generated token: send a prompt of at most ${maxContext - 1} tokens.`,
  /** A prompt plus `max_tokens` that exceed the context. */
  serveMaxTokensTooLarge: (
    field: string,
    maxTokens: number,
    promptTokens: number,
    maxContext: number,
  ): string =>
    `"${field}" = ${maxTokens} with a prompt of ${promptTokens} tokens exceeds the model's context of ${maxContext} tokens: pass "${field}" ≤ ${maxContext - promptTokens}, or a shorter prompt.`,
  /** `min_tokens` above `max_tokens`. */
  serveMinAboveMax: (minTokens: number, maxTokens: number): string =>
    `"min_tokens" = ${minTokens} is more than the ${maxTokens} tokens this request may generate ("max_tokens"): pass "min_tokens" ≤ "max_tokens".`,
  /** A token id of a prompt outside the vocabulary. */
  serveTokenOutOfRange: (id: number, vocabSize: number, field = 'prompt'): string =>
    `"${field}" token id ${id} is outside the model's vocabulary [0, ${vocabSize}): send ids below ${vocabSize}.`,
  /** The engine failed while generating. */
  serveEngineFailed: (cause: unknown): string =>
    `The engine failed while generating: ${clip(errorText(cause))}.`,
  /** A served model without a tokenizer. */
  serveNoTokenizer: (model: string): string =>
    `The model "${model}" has no tokenizer (a built-in config with a vocabulary under 256 tokens), so it cannot be served as text: use a config with vocabSize ≥ 256 or a folder with tokenizer.json.`,
  /** A served model that does not generate autoregressively. */
  serveNotAutoregressive: (model: string, paradigm: string): string =>
    `The model "${model}" is a ${paradigm} model; dantinox serve generates token by token (paradigm ar) only. Serve a config with paradigm: ar (every preset is one).`,
  /** The line `dantinox serve` prints once listening. */
  serveListening: (
    url: string,
    model: string,
    batching: string,
    maxBatch: number,
    maxQueue: number,
  ): string =>
    `dantinox serve: listening on ${url} (model "${model}", ${batching} batching, --max-batch ${maxBatch}, --max-queue ${maxQueue}); SIGTERM or Ctrl-C stops it after the requests in flight.`,
  /** A signal asked the server to stop. */
  serveStopping: (signal: string, inFlight: number, graceMs: number): string =>
    `${signal === 'SIGINT' ? 'Ctrl-C' : signal}: no new requests; finishing ${inFlight} in flight (at most ${graceMs / 1000} s; a second signal quits at once).`,
  /** The server stopped. */
  serveStopped: (drained: boolean): string =>
    drained
      ? 'dantinox serve: stopped after finishing every request in flight.'
      : 'dantinox serve: stopped; requests still running after the grace period were cancelled.',
  /** The address could not be listened on. */
  serveListenFailed: (host: string, port: number, cause: unknown): string =>
    `Cannot listen on ${host}:${port}: ${clip(errorText(cause))}. Pass another --port (0 picks a free one) or --host.`,

  // ── serving: the load generator ──────────────────────────────────────────
  /** A `dantinox load` base URL that is not an http(s) URL. */
  loadBadBaseUrl: (url: string): string =>
    `The base URL "${url}" is not an http:// or https:// URL. Pass the server's address, e.g. dantinox load http://127.0.0.1:8080/v1 (a URL without a path gets /v1).`,
  /** A load with neither a request count nor a duration. */
  loadNeedsBound: (): string =>
    'A load needs an end: pass --requests N or --duration 60s (or both; the first reached ends each sweep point).',
  /** A `--slo` value that does not parse. */
  loadBadSlo: (text: string): string =>
    `--slo "${text}" is not a list of objectives: use name=duration pairs with names ttft, tpot, e2e and durations in ms, s or m, e.g. --slo ttft=500ms,tpot=50ms.`,
  /** A text too short to cut a prompt of the asked token count from. */
  loadPromptTooShort: (wanted: number, found: number): string =>
    `Could not cut a prompt of exactly ${wanted} tokens (the source text gave ${found}): lower --input-tokens, or pass your own prompts with --prompts file.jsonl.`,
  /** A bad line of a `--prompts` JSONL file. */
  loadBadPromptLine: (path: string, line: number, what: string): string =>
    `--prompts ${path}${line > 0 ? `, line ${line}` : ''}: ${what}. Each line must be a JSON object {"prompt": "…", "output_tokens": 128} (output_tokens optional).`,
  /** A shared prefix not shorter than the prompt. */
  loadPrefixTooLong: (prefix: number, input: number): string =>
    `--shared-prefix ${prefix} must be shorter than --input-tokens ${input}: a prompt is its group's shared prefix and a rest of its own. Lower --shared-prefix or raise --input-tokens.`,
  /** A bad line of a `--conversations` JSONL file. */
  loadBadConversation: (path: string, line: number, what: string): string =>
    `--conversations ${path}${line > 0 ? `, line ${line}` : ''}: ${what}. Each line must be a ShareGPT conversation {"conversations": [{"from": "human", "value": "…"}, {"from": "gpt", "value": "…"}, …]} or {"messages": [{"role": "user", "content": "…"}, …]}.`,
  /** A bad row of a `--trace` CSV. */
  loadBadTrace: (path: string, row: number, what: string): string =>
    `--trace ${path}, row ${row}: ${what}. A trace is a CSV with the header TIMESTAMP,ContextTokens,GeneratedTokens (the Azure LLM inference trace format), or a .jsonl Mooncake trace of {"timestamp", "input_length", "output_length", "hash_ids"} rows.`,
  /** A sweep point where no request succeeded. */
  loadNoSuccess: (requests: number, stopped: string | undefined): string =>
    `no request of ${requests} measured succeeded${stopped === undefined ? '' : ` (sending stopped early: ${stopped})`}; see the errors_* counts, check the base URL, --endpoint and --model, and --timeout.`,
  /** `--find-max-goodput` without objectives. */
  loadSearchNeedsSlo: (): string =>
    '--find-max-goodput searches where requests still meet their objectives: pass them with --slo, e.g. --slo ttft=500ms,tpot=50ms.',
  /** A bad value of a `dantinox load` flag. */
  loadBadFlag: (flag: string, value: string, allowed: string): string =>
    `${flag} "${value}" is not valid: expected ${allowed}.`,
  /** Flags of `dantinox load` that exclude each other. */
  loadFlagsConflict: (a: string, b: string): string =>
    `${a} and ${b} cannot be used together: pass one of them.`,
  /** `--find-max-goodput` with a shard. */
  loadShardedSearch: (source: string): string =>
    `--find-max-goodput cannot be sharded (shard from ${source}): the search picks each probe from the ones before, so its points cannot be dealt out in advance. Run it on one machine without ${source === '--shard' ? '--shard' : `${source} (unset it) or --shards`}, or shard a fixed sweep (--concurrency 1,2,4,8 --shard i/n).`,
  /** `load --resume` without a shard. */
  loadResumeWithoutShard: (): string =>
    '--resume continues a sharded load (--shard i/n, or JOB_COMPLETION_INDEX / SLURM_ARRAY_TASK_ID): an unsharded load is one run and is measured again whole. Leave --resume out (with --force to replace the run in --out), or shard the load.',
  /** The `interrupted` note of a sweep point cut short in a shard. */
  loadPointInterrupted: (): string =>
    "interrupted (the run's signal fired) during this sweep point: its requests were cut short; rerun the shard with --resume to measure it again",
  /** The `interrupted` note of a merged load with points cut short (`merge --allow-partial`). */
  loadMergedInterrupted: (points: number): string =>
    `merged with --allow-partial: ${points} sweep point(s) were cut short in their shard; their numbers rest on part of their requests`,
  /** A merge of load shards with no measured point. */
  loadMergeNothing: (): string =>
    'The load shards hold no measured sweep point: run the shards first ("dantinox load <url> … --shard i/n --out <dir>"), then merge their folders.',
  /** Shards (or load clients) of two different loads given to one merge. */
  loadShardsDiffer: (
    a: string,
    b: string,
    flag: string,
    there: string,
    here: string,
    flags: IndexFlags = SHARD_FLAGS,
  ): string =>
    `"${a}" and "${b}" are ${flags.noun}s of different loads (${flag === 'base-url' ? 'the base URL' : flag} is ${there} in the first, ${here} in the second): merge only the ${flags.noun} folders of one "dantinox load" command, the same URL and flags but ${flags.one}.`,
  /** `load --client` (or `--clients`) together with a shard. */
  loadClientWithShard: (client: string, shard: string): string =>
    `${client} splits one sweep point's requests over client processes and ${shard} deals sweep points over processes: give one of them. To split each point of a sweep, run one client load per point (--concurrency 8 --client i/n, then --concurrency 16 --client i/n …).`,
  /** `load --client` with the goodput search. */
  loadClientSearch: (client: string): string =>
    `--find-max-goodput cannot be split over clients (${client}): the search picks each probe from the ones before, which processes that do not talk to each other cannot share. Search from one process, or split a fixed point (--concurrency 64 --client i/n --start-at …).`,
  /** `load --client` without `--start-at`. */
  loadClientNeedsStartAt: (client: string): string =>
    `${client} needs --start-at <time>: the clients of a point must start together, at one wall-clock time every process is given, e.g. --start-at 2026-12-06T10:00:00Z or --start-at $(date -d '+2 min' +%s).`,
  /** `load --client` with a sweep of several points. */
  loadClientOnePoint: (client: string, points: readonly string[]): string =>
    `${client} splits one sweep point, but --concurrency and --rate give ${points.length} (${list(points)}): give one value of each, and run one client load per point (each with its own --start-at and --out).`,
  /** A concurrency too small for the clients: some client would hold no request slot. */
  loadClientNoSlot: (concurrency: number, index: number, count: number): string =>
    `--concurrency ${concurrency} over ${count} clients leaves client ${index} no request slot (slot s goes to client s mod ${count}): give a --concurrency of at least ${count}, or fewer clients.`,
  /** `--start-at` that is not a time. */
  loadBadStartAt: (text: string): string =>
    `--start-at "${text}" is not a time: give an ISO 8601 time with its time zone (2026-12-06T10:00:00Z, 2026-12-06T11:00:00+01:00) or Unix seconds (1796551200, as date +%s prints), the same for every client.`,
  /** `--start-at` already past when the load starts. */
  loadStartAtPast: (at: string, agoMs: number): string =>
    `--start-at ${at} is ${(agoMs / 1000).toFixed(1)} s in the past: give a time far enough ahead for every client to start (their image pulled, their server check made), e.g. two minutes: --start-at $(date -d '+2 min' +%s).`,
  /** `load --client` without `--out`. */
  clientWithoutOut: (): string =>
    'A client load needs --out <dir> on storage every client shares: each client writes <dir>/client-<i>-of-<n>, and "dantinox merge <dir> --out <merged>" makes one sweep point of them.',
  /** Folders of shards and of load clients given to one merge. */
  mergeShardsAndClients: (shard: string, client: string): string =>
    `"${shard}" holds shards and "${client}" load clients: merge either the shard folders of one run or the client folders of one point, each with its own dantinox merge.`,
  /** A `load-client.json` that is not a client's manifest. */
  malformedClientManifest: (path: string, field: string): string =>
    `"${path}" is not the manifest of a "dantinox load --client" folder (field ${field === '' ? '(the file)' : field} is missing or wrong): merge client folders as the load wrote them, or run that client again.`,
  /** A client index found in two folders of one merge. */
  duplicateClient: (index: number, dirs: readonly string[]): string =>
    `Client ${index} is in more than one folder (${list(dirs)}): each client must be merged once. Leave the duplicate folder out.`,
  /** Clients of a point whose folders were not given. */
  clientsMissing: (indices: readonly number[], count: number): string =>
    `missing client folder(s) ${list(indices.map((i) => `client-${i}-of-${count}`))}: their share of the point's requests`,
  /** A client folder without finished results. */
  clientNotFinished: (dir: string, state: string): string =>
    state === 'missing'
      ? `client ${dir}: no results (the client never ran, or its results.json was never written)`
      : `client ${dir}: unfinished (cut short by Ctrl-C, SIGTERM or the end of its process: its requests are part of what it was to send)`,
  /** The same request of a point in two client folders. */
  loadClientsOverlap: (index: number, a: string, b: string): string =>
    `Request ${index} of the point is in two client folders ("${a}" and "${b}"): each client sends its own requests, so these are copies of one client or clients of different splits. Merge each client folder once.`,
  /** The `interrupted` note of a point merged from clients some of which were cut short. */
  loadClientsInterrupted: (clients: number): string =>
    `${clients} client(s) of this point were cut short or missing (merged with --allow-partial): its numbers rest on part of its requests`,
  /** An `https` server whose certificate the load client does not trust. */
  loadCertificateRejected: (origin: string, reason: string, caGiven: boolean): string =>
    `The server at ${origin} presented a certificate this client does not trust (${clip(reason)}): ${caGiven ? 'the --ca-file given did not sign it; pass the CA that did' : 'pass the CA that signed it (or its self-signed certificate) as a PEM file with --ca-file <ca.pem>'}, or check the host name of the URL.`,
  /** A `--ca-file` that cannot be read. */
  loadCaFileUnreadable: (path: string, cause: unknown): string =>
    `--ca-file "${path}" cannot be read: ${readHint(cause)}. Pass the PEM file of the CA that signed the server's certificate (or of its self-signed certificate).`,
  /** A `--ca-file` with no PEM certificate. */
  loadCaFileNotPem: (path: string): string =>
    `--ca-file "${path}" holds no PEM certificate (no "-----BEGIN CERTIFICATE-----" block): pass the CA certificate in PEM form, e.g. convert a DER file with openssl x509 -inform der -in ca.der -out ca.pem.`,
  /** An API key environment variable that is not set. */
  loadApiKeyMissing: (name: string): string =>
    `--api-key-env ${name}: the environment variable ${name} is not set. Export it, or pass --api-key-env with the variable that holds the key (a server without authentication needs none).`,
  /** The server's `/tokenize` disagrees with the client's default tokenizer. */
  loadTokenizerDiffers: (tokenizer: string, client: number, server: number): string =>
    `The server's /tokenize counts a sample text as ${server} tokens where the client's tokenizer (${tokenizer}) counts ${client}: responses without usage are counted by the server's /tokenize, but prompts are sized by ${tokenizer}, so --input-tokens is not exact; pass the served model's tokenizer with --tokenizer tokenizer.json.`,
  /** A bad line of a load's `requests.jsonl`. */
  requestsLineBad: (path: string, line: number, what: string): string =>
    `${path}, line ${line}: not a request record (${what}). The file is written by dantinox load; use the run folder's own file, or load again.`,
  /** Worker threads asked for where the compiled package is missing (running from the TypeScript sources). */
  loadWorkersNeedBuild: (): string =>
    '--workers above 1 runs the load in worker threads, which need the compiled package (npm run build); from the TypeScript sources, pass --workers 1.',
  /** A worker thread of a load failed. */
  loadWorkerFailed: (reason: string): string =>
    `A worker thread of the load failed (${clip(reason)}); the point's requests are lost. Run again, or with --workers 1 to send from the main thread.`,
  // ── serving: a load's self-checks (one sentence each, prefixed by the sweep point) ──────────────────
  /** Check `e2e_parts`: TTFT plus inter-token gaps never exceed a request's end-to-end latency. */
  checkE2eParts: (point: string, requests: number, bad: number, worstMs: number): string =>
    bad === 0
      ? `${point}: TTFT + inter-token gaps ≤ end-to-end latency for all ${requests} streamed requests`
      : `${point}: ${bad} of ${requests} requests have TTFT + inter-token gaps above their end-to-end latency (worst by ${worstMs.toFixed(3)} ms): the token timings are inconsistent; please report it with the run's results.json`,
  /** Check `throughput_recomputed`: output tokens/s agrees with the per-request rows. */
  checkThroughput: (point: string, stated: number, recomputed: number, ok: boolean): string =>
    ok
      ? `${point}: output tokens/s recomputed from the per-request rows agrees (${recomputed.toPrecision(6)})`
      : `${point}: output tokens/s is ${stated.toPrecision(6)} but the per-request rows give ${recomputed.toPrecision(6)}: the point's metrics are inconsistent; please report it with the run's results.json`,
  /** Check `rate_achieved`: requests went out at the planned rate. */
  checkRate: (
    point: string,
    achieved: number,
    planned: number,
    asked: number | undefined,
    queued: boolean,
  ): string => {
    const gap = `${(100 * (achieved / planned - 1)).toFixed(2)}%`;
    const ask = asked === undefined ? 'the trace' : `asked ${asked.toPrecision(5)}`;
    const head = `${point}: requests went out at ${achieved.toPrecision(5)} req/s, the schedule planned ${planned.toPrecision(5)} (${gap}; ${ask})`;
    if (Math.abs(achieved / planned - 1) <= 0.01) return head;
    return queued
      ? `${head}: requests waited for a free slot (--concurrency reached), so the server saw a lower rate than asked; raise --concurrency or lower --rate`
      : `${head}: the client could not keep its schedule; lower --rate, spread the load over more client processes (--workers, or --shard on several machines), or measure on a quieter machine`;
  },
  /** Check `schedule_lateness`: requests went out on time (queue time apart). */
  checkLateness: (point: string, p50Ms: number, p99Ms: number, limitMs: number): string =>
    p99Ms <= limitMs
      ? `${point}: requests went out within ${limitMs} ms of their planned times at p99 (lateness p50 ${p50Ms.toFixed(3)} ms, p99 ${p99Ms.toFixed(3)} ms)`
      : `${point}: requests went out late (lateness p50 ${p50Ms.toFixed(3)} ms, p99 ${p99Ms.toFixed(3)} ms, limit ${limitMs} ms), so arrivals were burstier than planned; spread the load over more client processes (--workers, or --shard on several machines), lower --rate, or measure on a quieter machine`,
  /** Check `token_counts`: the client's tokenizer and the server agree on output tokens. */
  checkTokenCounts: (
    point: string,
    client: number,
    server: number,
    tokenizer: string,
    ok: boolean,
  ): string => {
    const gap =
      server === 0
        ? ''
        : ` (${client >= server ? '+' : ''}${((100 * (client - server)) / server).toFixed(1)}%)`;
    return ok
      ? `${point}: the client's tokenizer (${tokenizer}) and the server agree on output tokens (${client} vs ${server})`
      : `${point}: the client's tokenizer (${tokenizer}) counted ${client} output tokens where the server reported ${server}${gap}; token counts and tok/s are the server's, but inter-token gaps inside a chunk are split by the client's counts: pass the served model's tokenizer with --tokenizer tokenizer.json`;
  },
  /** Check `prompt_tokens`: prompts have the planned token count by the server's count. */
  checkPromptTokens: (
    point: string,
    server: number,
    planned: number,
    tokenizer: string,
    ok: boolean,
  ): string =>
    ok
      ? `${point}: prompts have the planned ${planned} tokens by the server's count`
      : `${point}: the prompts were planned as ${planned} tokens by the client's tokenizer (${tokenizer}) but the server counted ${server}: pass the served model's tokenizer with --tokenizer tokenizer.json so that --input-tokens is exact`,
  /** Check `tokens_confirmed`: the output token counts are the server's or a tokenizer known to be its. */
  checkTokensConfirmed: (point: string, tokenizer: string, ok: boolean, verifiedBy: string): string =>
    ok
      ? `${point}: output tokens are ${verifiedBy}`
      : `${point}: the server reported no token counts (no usage, no /tokenize), so output tokens, tok/s, TPOT and ITL are approximate — counted by the client's tokenizer (${tokenizer}), which may not be the server's: pass the served model's tokenizer with --tokenizer tokenizer.json, or use a server that reports usage`,
  // ── cli ───────────────────────────────────────────────────────────────────
  /** `--config` names neither a preset nor an existing file. */
  unknownConfig: (value: string, presets: readonly string[]): string =>
    `Unknown preset ${excerpt(value)}.${suggestion(value, presets)} Available presets: ${list(presets)}; or pass the path of a YAML/JSON model config, e.g. --config my-model.yaml.`,
  /** A built-in trained preset whose shipped folder lacks a file. */
  trainedPresetMissing: (name: string, dir: string, missing: readonly string[]): string =>
    `The trained preset "${name}" is incomplete: ${list(missing)} missing from ${dir}. Reinstall dantinox (npm install dantinox), or rebuild the folder with npm run train:builtin in a clone of its repository.`,
  /** A built-in trained preset's file whose contents differ from the shipped ones. */
  trainedPresetCorrupt: (name: string, file: string, expected: string | undefined, actual: string): string =>
    `The trained preset "${name}"'s ${file} is not the shipped file (SHA-256 ${actual.slice(0, 16)}…, ${expected === undefined ? 'and SHA256SUMS does not list it' : `SHA256SUMS says ${expected.slice(0, 16)}…`}). Reinstall dantinox (npm install dantinox), or rebuild the folder with npm run train:builtin in a clone of its repository.`,
  /** `--config` looks like a path but the file does not exist. */
  configFileMissing: (path: string, presets: readonly string[]): string =>
    `Model config file "${path}" not found. Pass an existing YAML/JSON file or a preset (${list(presets)}).`,
  /** A CLI option value of the wrong kind, e.g. not a positive integer, with an example of a good one. */
  badCliValue: (value: string, expected: string, example: string): string =>
    `${excerpt(value)} is not ${expected}, e.g. ${example}.`,
  /** `--threads` above the bound of threads per core. */
  threadsAboveBound: (threads: number, bound: number, cores: number): string =>
    `--threads ${threads} is more than ${bound}, the most this machine allows (4 threads per core, ${cores} core(s) this process may use): beyond that the threads only wait for cores and the engine may stall creating them. Pass --threads ${bound} or fewer, or omit it to use every core.`,
  /** `--threads` above the machine's cores. */
  threadsAboveCores: (threads: number, cores: number): string =>
    `--threads ${threads} is more than the ${cores} core(s) this process may use: the threads will share cores and every timing will be slower than with --threads ${cores}. The report records both numbers.`,
  /** An `--out` file that already exists (export). */
  outFileExists: (file: string): string =>
    `--out "${file}" already exists. Pass another --out <file>, or --force to replace it.`,
  /** An `--out` that names a folder where one file is written (export). */
  outFileIsFolder: (file: string): string =>
    `--out "${file}" is a folder, but this export writes one file. Pass a file path, e.g. --out ${file}/model.gguf.`,
  /** An `--out` folder that already holds a Hugging Face model (export --format hf). */
  outFolderHoldsModel: (dir: string, found: readonly string[]): string =>
    `--out "${dir}" already holds a Hugging Face model (${list(found)}). Pass another --out <folder>, or --force to remove those files and write this model in their place.`,
  /** An `--out` folder that already holds a tokenizer (tokenizer train). */
  outFolderHoldsTokenizer: (dir: string, found: readonly string[]): string =>
    `--out "${dir}" already holds a tokenizer (${list(found)}). Pass another --out <folder>, or --force to replace those files.`,
  /** An `--out` that names a file where a folder is written. */
  outFolderIsFile: (dir: string): string =>
    `--out "${dir}" is a file, but a folder is written there. Pass a folder (new or existing) as --out.`,
  /** An `--out` folder that already holds a run (bench, merge). */
  outDirHoldsRun: (dir: string, found: readonly string[]): string =>
    `--out "${dir}" already holds a run (${list(found)}). Pass another --out <dir>, or --force to replace that run.`,
  /** A run folder another live dantinox process is writing (its lock file), given as `flag` (`--out`, `--resume`). */
  outDirLocked: (
    dir: string,
    pid: number,
    host: string,
    since: string,
    lock: string,
    flag: '--out' | '--resume' = '--out',
  ): string =>
    `${flag} "${dir}" is being written by another dantinox process (pid ${pid} on ${host}, since ${since}); --force does not override that. Wait for it to end${flag === '--out' ? ' or pass another --out <dir>' : ''}; if that process is gone, delete ${lock}.`,
  /** An output directory that cannot be created or written. */
  outDirNotWritable: (dir: string, cause: unknown): string =>
    errorCode(cause) === 'ENOSPC'
      ? `Cannot write to the output directory "${dir}": no space left on the device. Free some space or pass another --out <dir>.`
      : `Cannot write to the output directory "${dir}" (${errorCode(cause)}): ${writeHint(cause, '--out <dir>')}.`,
  /** A `--data` text file that does not exist or cannot be read. */
  dataFileMissing: (path: string): string =>
    `Data file "${path}" not found or not readable. Pass a UTF-8 text file with --data <file>, or leave --data out to use the built-in validation text.`,
  /** A `--data` path that is a folder. */
  dataFileIsFolder: (path: string): string =>
    `--data "${path}" is a folder. Pass a UTF-8 text file with --data <file>, or leave --data out to use the built-in validation text.`,
  /** A `--model` folder that does not exist. */
  modelFolderMissing: (path: string, flag: '--model' | '--reference'): string =>
    flag === '--model'
      ? `Model folder "${path}" not found. Pass a Hugging Face ONNX export folder (config.json, tokenizer.json, onnx/model.onnx) with --model <dir>.`
      : `Reference model folder "${path}" not found. Pass the kld task's full-precision model, a Hugging Face ONNX export folder (config.json, tokenizer.json, onnx/model.onnx), with --reference <dir>.`,
  /** A `--reference` folder without the files of a Hugging Face ONNX model. */
  referenceFolderIncomplete: (path: string, missing: readonly string[]): string =>
    `Reference model folder "${path}" has no ${list(missing)}, so it is not a Hugging Face ONNX model. Pass the kld task's full-precision model with --reference <dir> (a folder written by "dantinox export --format hf" or optimum-cli).`,
  /** A results file given to `plot` that does not exist. */
  resultsFileMissing: (path: string): string =>
    `Results file "${path}" not found. Pass the results.csv or results.json written by "dantinox bench" (e.g. results/<run>/results.csv).`,
  /** A results directory given to `report` that holds no results. */
  resultsDirEmpty: (path: string): string =>
    `"${path}" holds no results.json, results.csv or results.jsonl. Pass a directory written by "dantinox bench --out <dir>".`,
  /** Results files of a run that could not be written (the reason was logged above). */
  resultsNotWritten: (files: readonly string[], noneWritten: boolean): string =>
    noneWritten
      ? `Not written: ${list(files)} (see the error above); no results file of this run is saved, only the summary above. Rerun with --out on a disk with space.`
      : `Not written: ${list(files)} (see the error above); the measurements are in the files that were.`,
  /** An empty `--tasks` list, or one with a name twice. */
  badTaskList: (value: string, available: readonly string[]): string =>
    `--tasks ${excerpt(value)} must list each task once, separated by commas, from: ${list(available)}.`,
  /** How to add a task or chart of one's own, appended to an unknown-name message. */
  addYourOwn: (kind: 'task' | 'chart', example: string): string =>
    `Add your own ${kind} with --plugin <module> (see ${example} and "Plugins" in the README).`,
  /** A `--plugin` module that cannot be imported. */
  pluginLoadFailed: (spec: string, cause: string): string =>
    `Plugin "${spec}" cannot be loaded: ${cause}. Pass the path of an ES module (e.g. --plugin ./my-plugin.js) or an installed package name.`,
  /** A thrown value that is not an `Error` and has no string form, e.g. `throw Object.create(null)`. */
  unprintableThrown: (tag: string): string =>
    `a value that is not an Error and cannot be turned into text was thrown (${tag}); throw an Error with a message instead`,
  /** A `--plugin` module whose import (top-level code) or default function did not finish within the bound. */
  pluginTimedOut: (spec: string, ms: number, stage: 'import' | 'register'): string =>
    stage === 'import'
      ? `Plugin "${spec}" did not finish loading within ${ms} ms: its top-level code (or a module it imports) never ends. A plugin's top level should only define things; do slow set-up inside its default function, and check that the module given to --plugin is the one meant.`
      : `Plugin "${spec}" loaded, but its default function did not finish within ${ms} ms: it waits on something that never comes. Make it register its tasks and charts and return.`,
  /** A `--plugin` module with a top-level await on a promise nothing settles (Node would exit 13 in silence). */
  pluginUnsettled: (spec: string): string =>
    `Plugin "${spec}" never finishes loading: a top-level await in it (or in a module it imports) waits on a promise that nothing can settle, so Node would stop with exit code 13. Remove that await from the module's top level, or move the work into its default function.`,
  /** A `--plugin` module without a default-exported function. */
  pluginNotAFunction: (spec: string, got: string): string =>
    `Plugin "${spec}" must export a default function ({ tasks, charts }) => { … }, but its default export is ${got === 'undefined' ? 'missing' : `a ${got}`}.`,
  /** A `--plugin` whose function threw, e.g. registering a name that is taken. */
  pluginFailed: (spec: string, cause: string): string => `Plugin "${spec}" failed: ${cause}`,
  /** `--config` and `--model` given together. */
  configAndModel: (): string =>
    'Pass either --config <file|preset> (a built-in model) or --model <folder> (a Hugging Face ONNX folder or a dantinox model folder), not both.',
  /** `--paradigm diffusion` on a loaded decoder. */
  paradigmOnLoadedModel: (paradigm: string): string =>
    `--paradigm ${paradigm} applies to built-in models only: a Hugging Face decoder folder is autoregressive (ar). Drop --paradigm or use --config.`,
  /** `--data` given but no task that reads it. */
  dataUnused: (): string => '--data is only read by the perplexity, kld and choice tasks.',
  /** The note under a summary of a model with random weights. */
  randomWeightsNote: (tasks: readonly string[]): string | undefined => {
    const ran = (...names: string[]): boolean => names.some((n) => tasks.includes(n));
    const parts = [
      ran('perplexity') ? 'perplexity only checks the pipeline (≈ vocabulary size)' : undefined,
      ran('throughput', 'latency') ? 'speed and latency are those of any model of this shape' : undefined,
      ran('kld')
        ? 'KLD and top-1 agreement measure how far the quantized random weights drift, which says little about how a trained model of this shape quantizes'
        : undefined,
      ran('choice') ? 'multiple-choice accuracy is near chance' : undefined,
    ].filter((p) => p !== undefined);
    return parts.length === 0 ? undefined : `Note: the weights are random, so ${parts.join('; ')}.`;
  },
  /** The tasks of a run that did not complete (each as `name (status)`). */
  tasksIncomplete: (tasks: readonly string[]): string =>
    `${tasks.length} task(s) did not complete: ${list(tasks)}.`,
  /** Charts that threw while rendering. */
  chartsFailed: (charts: readonly string[]): string =>
    `Chart(s) failed to render: ${list(charts)} (see the warnings above).`,
  /** One chart that was not drawn, and why. */
  chartNotDrawn: (chart: string, status: string, reason: string): string =>
    `${chart}: not drawn (${status}): ${reason}`,
  /** Charts skipped because the data has no columns for them. */
  chartsWithoutData: (charts: readonly string[]): string =>
    `Not drawn (no data for them): ${list(charts)}; --verbose says why.`,
  /** The notice at the first Ctrl-C or SIGTERM of a bench run. */
  stoppingAfterCall: (signal: string): string =>
    `${signal === 'SIGINT' ? 'Ctrl-C' : signal}: stopping after the current engine call and writing every output from what was measured (${signal === 'SIGINT' ? 'Ctrl-C' : signal} again to quit at once; results.jsonl keeps every finished cell).`,
  /** The abort reason of a run stopped by a signal. */
  runInterrupted: (signal: string): string => `the run was stopped by ${signal}`,
  /** The launcher's notice when a second signal made it kill the worker. */
  quitAtOnce: (signal: string, cells: CellsStream | undefined): string =>
    `${signal === 'SIGINT' ? 'Ctrl-C' : signal} again: quit at once.${cellsSoFar(cells)}`,
  /** The launcher's notice when the worker did not stop within the grace after a SIGTERM. */
  termGraceOver: (ms: number, cells: CellsStream | undefined): string =>
    `SIGTERM: the run did not stop within ${ms / 1000} s (a call that holds the process), so it was killed.${cellsSoFar(cells)}`,
  /** The launcher's notice when its worker died from a signal it did not send. */
  workerKilled: (signal: string, cells: CellsStream | undefined): string =>
    `The benchmark process was killed by ${signal}${signal === 'SIGKILL' ? ' (most likely the out-of-memory killer: see `dmesg`, and try a smaller model, batch or --max-cell-ms)' : signal === 'SIGSEGV' || signal === 'SIGBUS' || signal === 'SIGABRT' ? ' (a crash in the engine)' : ''}.${cellsSoFar(cells)}`,
  /** A variant's own process that ended before answering. */
  variantProcessDied: (variant: string, code: number | null, signal: string | null): string =>
    `variant ${variant}: its process ended before finishing (${signal === null ? `exit code ${code}` : `killed by ${signal}`}${signal === 'SIGKILL' ? ', most likely the out-of-memory killer: see `dmesg`, and try a smaller model, batch or --max-cell-ms' : ''}); its rows are marked failed and the matrix goes on.`,
  /** A run measured on a busy machine. */
  busyMachine: (load: number, cpus: number): string =>
    `the machine was busy: load average ${load.toFixed(1)} on ${cpus} logical CPUs during the run. Other processes take cores and clock from the engine, so these timings may not repeat; measure on an idle machine (load below ${(cpus / 2).toFixed(1)}) before trusting a comparison.`,
  /** A cell whose slowest calls are far slower than its typical one. */
  noisyCellTail: (what: string, ratio: number): string =>
    `${what}: its p99 is ${ratio.toPrecision(2)}× its median, so its mean ± sd does not describe a typical call (interference, garbage collection or frequency changes); read its p50, or rerun with a larger --n-measure on an idle machine.`,
  /** One computation timed twice (two tasks, or two runs of one variant) with results beyond their spread. */
  siblingsDisagree: (fast: string, fastMs: number, slow: string, slowMs: number): string =>
    `the same prefill took ${Number(fastMs.toPrecision(3))} ms in ${fast} and ${Number(slowMs.toPrecision(3))} ms in ${slow} (+${Math.round((slowMs / fastMs - 1) * 100)}%, beyond their spread): the machine's speed changed during the run, so differences of that size between cells or variants are not the model's; rerun on an idle machine.`,
  /** Two sibling variants ordered against expectation: more threads slower, or q4 slower to decode than fp32. */
  variantsOutOfOrder: (
    kind: 'threads' | 'q4',
    expectedFast: string,
    other: string,
    where: string,
    slowMs: number,
    fastMs: number,
  ): string =>
    `${expectedFast} is slower than ${other}: ${where} took ${Number(slowMs.toPrecision(3))} ms against ${Number(fastMs.toPrecision(3))} ms (+${Math.round((slowMs / fastMs - 1) * 100)}%, beyond their spread), ${
      kind === 'threads'
        ? "although more threads should not be slower: the threads may be more than the free cores (other processes, or --threads above the cores), the machine was busy during one of them, or the cell too small to pay for the threads' synchronization; rerun on an idle machine with --threads at most the cores before reading it as what threads do."
        : "although 4-bit weights are an eighth of fp32's bytes and a decode step reads them all: the engine may lack a fast 4-bit kernel for this shape, or the machine's speed changed between them; rerun on an idle machine before reading q4 as slower."
    }`,
  /** The CPU clock fell during a run. */
  clockFell: (startMhz: number, endMhz: number): string =>
    `the CPU clock fell from ${Math.round(startMhz)} MHz to ${Math.round(endMhz)} MHz during the run (thermal or power limits, or a frequency governor), so later cells ran slower than earlier ones; let the machine cool or set the performance governor, then rerun.`,
  /** A run during which other processes kept CPUs busy (measured from /proc/stat). */
  busyMachineCpus: (others: number, cpus: number): string =>
    `the machine was busy: other processes kept ${others.toFixed(1)} of its ${cpus} logical CPUs busy on average during the run, taking cores and clock from the engine, so these timings may not repeat; measure on an idle machine (other processes below ${(cpus / 2).toFixed(1)} CPUs) before trusting a comparison.`,
  /** A calibration that could not be written to its cache. */
  calibrationNotStored: (path: string, why: string): string =>
    `the calibration could not be cached in ${path} (${why}); it serves this run, and the next run measures again. Make the folder writable, or point DANTINOX_CACHE_DIR at one that is.`,
  /** A calibration measured while the machine was busy. */
  busyCalibration: (load: number, cpus: number): string =>
    `the calibration was measured while the machine was busy (load average ${load.toFixed(1)} on ${cpus} logical CPUs), so its ceilings may be too low and MFU/MBU too high; it serves this run and is measured again by the next one (or now: dantinox calibrate --recalibrate on an idle machine).`,
  /** MFU/MBU of a run without a calibration. */
  noCalibration: (): string =>
    'no ceilings: the run skipped the calibration (--no-calibrate); run without it, or `dantinox calibrate` once, to get MFU and MBU',
  /** MFU/MBU of a run on an execution provider the calibration probes do not run on. */
  ceilingsCpuOnly: (provider: string): string =>
    `no ceilings for --ep ${provider}: the calibration probes run on ONNX Runtime's CPU kernels, so a ${provider} run has no measured ceiling to be a fraction of`,
  /** A theoretical peak below the ceiling measured on the same machine. */
  theoreticalBelowMeasured: (theory: number, measured: number, basis: string): string =>
    `the theoretical fp32 peak (${theory.toFixed(0)} GFLOP/s from ${basis}) is below the measured ceiling (${measured.toFixed(0)} GFLOP/s): the clock read is not the one the cores run at (turbo, or a virtual machine's nominal clock), so no theoretical peak is given`,
  /** The line a bench run ends with when a signal stopped it. */
  benchStopped: (signal: string): string =>
    `Stopped by ${signal === 'SIGINT' ? 'Ctrl-C' : signal}: every cell measured before is in every output above.`,
  // ── training ──────────────────────────────────────────────────────────────
  /** A mixture-of-experts config given to the trainer. */
  trainMoe: (): string =>
    'The trainer cannot train a mixture-of-experts FFN (ffn "moe"): its top-k routing has no gradient rule and needs a load-balancing loss it does not have. Train a dense config (ffn "mlp") with --config.',
  /** A training sequence longer than the model's context. */
  trainSeqTooLong: (seq: number, maxContext: number): string =>
    `The training sequence length ${seq} exceeds the model's maxContext (${maxContext}): pass --seq-len ${maxContext} or less, or a --config with a larger maxContext.`,
  /** Training text that is empty (or only whitespace). */
  trainEmptyText: (name: string): string =>
    `The training text ${name} is empty: pass --data with a UTF-8 text file that has some text in it (or leave --data out to train on the Brown corpus).`,
  /** A training text of too few paragraphs to hold one out. */
  trainFewParagraphs: (name: string, paragraphs: number, every: number): string =>
    `The training text ${name} has ${paragraphs} paragraph${paragraphs === 1 ? '' : 's'}, but every ${every}th paragraph is held out for validation, so it needs at least ${every}: separate the --data file's paragraphs with blank lines.`,
  /** Held-out text shorter than one validation window. */
  trainHeldOutTooShort: (tokens: number, needed: number): string =>
    `The held-out text has ${tokens} tokens, fewer than one validation window (${needed}): pass a longer --data file, or a smaller --seq-len.`,
  /** Training text shorter than one batch. */
  trainTextTooShort: (tokens: number, batch: number, window: number): string =>
    `The training text has ${tokens} tokens, fewer than one batch (${batch} × ${window} = ${batch * window}): pass a longer --data file, or a smaller --batch-size or --seq-len.`,
  /** ONNX Runtime failing on a training or evaluation graph. */
  trainingEngineFailed: (cause: unknown): string =>
    `ONNX Runtime failed on the training graph: ${errorText(cause)}`,
  /** A training run of no steps. */
  trainNoSteps: (steps: unknown): string =>
    `A training run needs at least one step, received ${String(steps)}: pass --steps 1 or more (library: \`steps\`).`,
  /** Averaging that would start after the last update. */
  trainAverageFrom: (from: number, steps: number): string =>
    `--average-from ${from} is after the last step (--steps ${steps}): give a step from 1 to ${steps}, or 0 for no averaging (library: \`averageFrom\`).`,
  /** A learning-rate floor above the peak. */
  trainMinLr: (minLr: number, lr: number): string =>
    `The final learning rate --min-lr (${minLr}) must be between 0 and the peak --lr (${lr}) (library: \`minLr\`, \`lr\`).`,
  /** What a training run's memory estimate is for. */
  trainingBuild: (dim: number, blocks: number, vocab: number, batch: number, seq: number): string =>
    `Training a model of dim ${dim}, ${blocks} blocks and vocabulary ${vocab} on batches of ${batch} × ${seq} tokens (weights, gradients, AdamW moments and activations; a smaller --batch-size or --seq-len needs less)`,
  /** A loss that is no longer finite. */
  trainDiverged: (step: number, loss: number, lr: number): string =>
    `Training diverged at step ${step}: the loss is ${String(loss)}. Lower the learning rate (--lr, now ${lr}) or keep --grad-clip on, and start again.`,
  /** A config whose vocabulary fits no built-in tokenizer, with no --tokenizer. */
  trainNoTokenizer: (vocabSize: number): string =>
    `No built-in tokenizer fits a vocabulary of ${vocabSize} (bytes need 256, GPT-2's BPE 50257): pass --tokenizer with a tokenizer.json of at most ${vocabSize} ids, or a --config with a larger vocab_size.`,
  /** A tokenizer that produces ids beyond the config's vocabulary. */
  trainTokenizerTooLarge: (name: string, tokenizerVocab: number, modelVocab: number): string =>
    `The tokenizer ${name} has ${tokenizerVocab} ids but the model's vocab_size is ${modelVocab}: pass a --config with vocab_size ${tokenizerVocab} or more, or a --tokenizer of at most ${modelVocab} ids.`,
  /** Settings given with --resume. */
  trainResumeSettings: (given: readonly string[]): string =>
    `--resume continues a run with its own config, data, tokenizer and settings; drop ${list(given.map((g) => (g === 'options' ? 'the training flags' : `--${g}`)))} (library: leave \`${given.join('`, `')}\` out), or start a new run in another --out.`,
  /** --resume of a folder without a checkpoint. */
  trainNoCheckpoint: (dir: string): string =>
    `There is no training checkpoint in "${dir}" to resume (no checkpoint/trainer.json): pass the --out folder of a training run to --resume.`,
  /** --resume with another thread count than the run's. */
  trainResumeThreads: (given: number, recorded: number): string =>
    `The run was trained with --threads ${recorded}; a resume must use the same count to continue bit for bit: drop --threads ${given} (or pass ${recorded}).`,
  /** Training text that changed since the checkpoint. */
  trainDataChanged: (name: string): string =>
    `The training text ${name} is not the one the checkpoint was trained on (its SHA-256 differs): restore it, or start a new run.`,
  /** The training curve could not be drawn. */
  trainCurveNotDrawn: (reason: string): string => `The training curve was not drawn: ${reason}`,
  /** --resume with --out. */
  trainResumeAndOut: (): string =>
    '--resume <dir> continues the run in <dir>: drop --out (the run stays in its own folder).',
  /** The line a stopped training run ends with: where its checkpoint is, if it has one. */
  trainStopped: (step: number, steps: number, dir: string, checkpoint: boolean): string =>
    checkpoint
      ? `Stopped at step ${step} of ${steps}: the checkpoint of that step is in ${dir}/checkpoint; \`dantinox train --resume ${dir}\` continues the run.`
      : `Stopped before the first step: nothing was trained or checkpointed; run the command again (with --force to reuse ${dir}).`,
  /** The notice of a training run's first stop signal. */
  trainStopping: (signal: string): string =>
    `${signal === 'SIGINT' ? 'Ctrl-C' : signal}: stopping after the current training step and writing a checkpoint of it (${signal === 'SIGINT' ? 'Ctrl-C' : signal} again to quit at once; the last checkpoint stays).`,
  /** `--paradigm` other than a trained model folder's own. */
  paradigmOnTrainedModel: (paradigm: string, own: string): string =>
    `--paradigm ${paradigm} does not apply to this trained model: its weights were trained as ${own}. Drop --paradigm.`,
  // ── quantization and quality ─────────────────────────────────────────────
  /** A 4-bit block size that is not a power of two ≥ 16. */
  invalidBlockSize: (blockSize: unknown): string =>
    `The q4 block size must be a power of two ≥ 16 (16, 32, 64, 128, …), received ${String(blockSize)}. Pass e.g. --block-size 32.`,
  /** A 4-bit block size that does not divide a quantized matrix's input dimension. */
  blockSizeDoesNotDivide: (blockSize: number, dim: number, fits: readonly number[]): string =>
    `The q4 block size ${blockSize} does not divide the matrix dimension ${dim}; block sizes that divide every quantized matrix of this model: ${fits.length > 0 ? list(fits.map(String)) : 'none (use q8 or fp16)'}.`,
  /** A dtype the chosen engine or model kind cannot run. */
  dtypeNotAvailable: (dtype: string, where: string, available: readonly string[]): string =>
    `dtype "${dtype}" is not available for ${where}. Available: ${list(available)}.`,
  /** A Hugging Face folder without the ONNX file of the asked dtype. */
  hfDtypeMissing: (folder: string, dtype: string, file: string, available: readonly string[]): string =>
    `"${folder}" has no ${dtype} model (onnx/${file}). Dtypes this folder has: ${available.length > 0 ? list(available) : 'none'}. Pass one of them with --dtype (or write that file from a built-in model with \`dantinox export --format hf --dtype ${dtype}\`).`,
  /** A choice task text with too few sentences to make items of. */
  choiceTooFewSentences: (source: string, eligible: number, distractors: number, tolerance: number): string =>
    `"${source}" has ${eligible} sentences of 6 to 30 words, and none whose continuation has --choice-distractors ${distractors} other continuations within ${Math.round(tolerance * 100)}% of its length in bytes: the choice task cannot build an item. Give a longer --data text or fewer --choice-distractors.`,
  /** A kld reference whose vocabulary differs from the model's. */
  kldVocabMismatch: (model: number, reference: number): string =>
    `The kld reference model has a vocabulary of ${reference} tokens but the model has ${model}: compare models of the same vocabulary (the fp32 model of the same config, or --reference DIR with the same tokenizer).`,
  /** The kld task on a model with no reference available. */
  kldNoReference: (model: string): string =>
    `The kld task needs a reference model for "${model}": pass --reference DIR (a folder with the full-precision model), or give the task a reference in the library API.`,
  /** An error nobody anticipated: a bug, reported with how to get details. */
  unexpectedError: (message: string): string =>
    `${message} (unexpected error; rerun with --verbose for the stack trace, and please report it)`,
} as const;
