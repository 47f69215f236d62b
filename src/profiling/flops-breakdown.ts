/**
 * `FlopsBreakdown`: the FLOPs of one pass, split as in the seed, with the seed's printed form.
 */
import { formatFlops } from './format-flops.js';

/**
 * Which formulas {@link countFlops} uses.
 *
 * - `'exact'`: the count for the architecture actually built (GQA, SwiGLU, MoE, sliding window, KV cache).
 * - `'seed'`: the seed's documented formulas, bit for bit (see {@link countFlops}).
 */
export type FlopsFormula = 'exact' | 'seed';

/**
 * How MoE layers are counted: `'active'` = the router plus the `topK` experts each token is routed to (the
 * compute a sparse implementation does); `'dense'` = the router plus all `nExperts` experts, as an
 * implementation that runs every expert on every token (like the seed's) executes them.
 */
export type MoeCounting = 'active' | 'dense';

/** Which pass a {@link FlopsBreakdown} counts: one forward pass, or forward + backward of a training step. */
export type FlopsPass = 'forward' | 'training';

/** The counted parts and inputs a {@link FlopsBreakdown} is built from; the sums are derived. */
export interface FlopsBreakdownInit {
  /** FLOPs of the Q, K, V and O projections over all blocks. */
  readonly attentionProjections: number;
  /** FLOPs of QKᵀ and AV over all blocks. */
  readonly attentionScores: number;
  /** FLOPs of the feed-forward layers over all blocks, router included. */
  readonly ffn: number;
  /** FLOPs of the MoE router over all blocks (part of `ffn`; 0 for a dense MLP). */
  readonly router: number;
  /** FLOPs of the LM-head (unembedding) matmul. */
  readonly lmHead: number;
  /** New tokens per sequence. */
  readonly seqLen: number;
  /** Number of sequences. */
  readonly batchSize: number;
  /** Tokens already in the KV cache. */
  readonly pastLength: number;
  /** Positions per sequence whose logits the LM head computed (the last ones). @default seqLen */
  readonly logitPositions?: number | undefined;
  /** Formulas used. */
  readonly formula: FlopsFormula;
  /** MoE counting used. */
  readonly moe: MoeCounting;
  /** Forward pass or training step. */
  readonly pass: FlopsPass;
}

/**
 * FLOPs of one pass, in floating-point operations (1 multiply-add = 2 FLOPs), split as in the seed
 * (`attention`, `ffn`, `embedding`, `total`) plus finer fields. Immutable.
 *
 * `attention = attentionProjections + attentionScores`, `ffn` includes `router`, `embedding = lmHead` (the
 * seed's name for the LM-head matmul; the embedding lookup itself costs no FLOPs), and
 * `total = attention + ffn + embedding`.
 */
export class FlopsBreakdown {
  /** Attention FLOPs: Q/K/V/O projections plus QKᵀ and AV, all blocks. */
  readonly attention: number;
  /** Feed-forward FLOPs, all blocks: MLP or MoE experts plus the router. */
  readonly ffn: number;
  /** LM-head (unembedding) matmul FLOPs; named `embedding` as in the seed. */
  readonly embedding: number;
  /** Sum of `attention`, `ffn` and `embedding`. */
  readonly total: number;
  /** Q, K, V and O projection FLOPs (part of `attention`). */
  readonly attentionProjections: number;
  /** QKᵀ plus AV FLOPs (part of `attention`). */
  readonly attentionScores: number;
  /** MoE router FLOPs (part of `ffn`; 0 without MoE). */
  readonly router: number;
  /** LM-head matmul FLOPs (same value as `embedding`). */
  readonly lmHead: number;
  /** New tokens per sequence. */
  readonly seqLen: number;
  /** Number of sequences. */
  readonly batchSize: number;
  /** Tokens already in the KV cache. */
  readonly pastLength: number;
  /** Positions per sequence whose logits the LM head computed, the last ones (`seqLen`: every position). */
  readonly logitPositions: number;
  /** Formulas used. */
  readonly formula: FlopsFormula;
  /** MoE counting used. */
  readonly moe: MoeCounting;
  /** Forward pass or training step (forward + backward). */
  readonly pass: FlopsPass;

  /** Builds a breakdown from its counted parts; `attention`, `embedding` and `total` are derived from them. */
  constructor(init: FlopsBreakdownInit) {
    this.attentionProjections = init.attentionProjections;
    this.attentionScores = init.attentionScores;
    this.attention = init.attentionProjections + init.attentionScores;
    this.ffn = init.ffn;
    this.router = init.router;
    this.lmHead = init.lmHead;
    this.embedding = init.lmHead;
    this.total = this.attention + this.ffn + this.embedding;
    this.seqLen = init.seqLen;
    this.batchSize = init.batchSize;
    this.pastLength = init.pastLength;
    this.logitPositions = init.logitPositions ?? init.seqLen;
    this.formula = init.formula;
    this.moe = init.moe;
    this.pass = init.pass;
    Object.freeze(this);
  }

  /** The seed's five-line form: `FLOPs breakdown:` then attention, ffn, embedding and total, scaled by {@link formatFlops}. */
  toString(): string {
    return [
      'FLOPs breakdown:',
      `  attention : ${formatFlops(this.attention)}`,
      `  ffn       : ${formatFlops(this.ffn)}`,
      `  embedding : ${formatFlops(this.embedding)}`,
      `  total     : ${formatFlops(this.total)}`,
    ].join('\n');
  }

  /** A longer form with the finer fields and the inputs, for reports and the CLI. */
  toDetailedString(): string {
    const logits = this.logitPositions === this.seqLen ? '' : `, logits of the last ${this.logitPositions}`;
    const head = `FLOPs breakdown (${this.pass}, formula ${this.formula}, B=${this.batchSize}, T=${this.seqLen}, past=${this.pastLength}${logits}):`;
    return [
      head,
      `  attention : ${formatFlops(this.attention)}`,
      `    projections : ${formatFlops(this.attentionProjections)}`,
      `    scores      : ${formatFlops(this.attentionScores)}`,
      `  ffn       : ${formatFlops(this.ffn)}`,
      `    router      : ${formatFlops(this.router)}`,
      `  embedding : ${formatFlops(this.embedding)}  (LM head)`,
      `  total     : ${formatFlops(this.total)}`,
    ].join('\n');
  }
}
