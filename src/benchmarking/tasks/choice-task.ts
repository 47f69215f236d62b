/**
 * `ChoiceTask`: a multiple-choice log-likelihood task in the style of lm-eval — pick a held-out sentence's true
 * continuation among distractor continuations of other sentences — with accuracy, length-normalised accuracy,
 * bootstrap intervals over items and, against a reference model, McNemar's paired test.
 *
 * @packageDocumentation
 */
import { DantinoxError } from '../../errors.js';
import { messages } from '../../messages.js';
import type { Model } from '../../models/model.js';
import { logitScorer } from '../../models/onnx/logit-scorer.js';
import type { Paradigm } from '../../models/paradigm.js';
import type { Tokenizer } from '../../models/tokenizer.js';
import { builtinTokenizer } from '../../models/tokenizers/builtin-tokenizer.js';
import {
  bootstrapClusters,
  clusterBootstrapMethod,
  type Interval,
  MCNEMAR_METHOD,
  mcnemarTest,
} from '../../profiling/index.js';
import type { Rng } from '../../rng.js';
import { readTextFile } from '../../text-file.js';
import type { BenchmarkConfig } from '../config.js';
import { brownSentences, brownSplitName } from '../data/brown-corpus.js';
import type { BenchmarkContext, BenchmarkResult, CellRecord, MetaValue, MetricDescriptor } from '../task.js';
import { buildChoiceItems, type ChoiceItem, splitSentences } from './choice-items.js';
import { EvalBudget, type PerplexityData } from './eval-windows.js';
import { intervalMetrics, withIntervalColumns } from './interval-columns.js';
import { keepCell, standaloneContext } from './task-context.js';
import { type KldReference, withReference } from './with-reference.js';

/** Metrics of {@link ChoiceTask} (the `reference_*` and `mcnemar_*` ones only with a reference model). */
export const CHOICE_METRICS: readonly MetricDescriptor[] = [
  ...withIntervalColumns({
    key: 'accuracy',
    unit: '1',
    description:
      'Fraction of items whose true continuation has the largest summed log-likelihood given the context.',
    higherIsBetter: true,
  }),
  ...withIntervalColumns({
    key: 'accuracy_norm',
    unit: '1',
    description:
      "Fraction of items whose true continuation has the largest summed log-likelihood ÷ its UTF-8 byte length (lm-eval's acc_norm).",
    higherIsBetter: true,
  }),
  {
    key: 'chance_accuracy',
    unit: '1',
    description: 'Accuracy of a uniform guess: 1 / (distractors + 1).',
  },
  { key: 'items', unit: 'items', description: 'Multiple-choice items scored.' },
  {
    key: 'reference_accuracy',
    unit: '1',
    description: 'accuracy of the reference model on the same items.',
    higherIsBetter: true,
  },
  {
    key: 'reference_accuracy_norm',
    unit: '1',
    description: 'accuracy_norm of the reference model on the same items.',
    higherIsBetter: true,
  },
  {
    key: 'mcnemar_b',
    unit: 'items',
    description: 'Items the reference answered right and the model wrong (accuracy).',
  },
  {
    key: 'mcnemar_c',
    unit: 'items',
    description: 'Items the model answered right and the reference wrong (accuracy).',
  },
  {
    key: 'mcnemar_p',
    unit: '1',
    description: "Two-sided p-value of McNemar's test of accuracy, model vs reference (method in meta).",
  },
  {
    key: 'mcnemar_norm_b',
    unit: 'items',
    description: 'Items the reference answered right and the model wrong (accuracy_norm).',
  },
  {
    key: 'mcnemar_norm_c',
    unit: 'items',
    description: 'Items the model answered right and the reference wrong (accuracy_norm).',
  },
  {
    key: 'mcnemar_norm_p',
    unit: '1',
    description: "Two-sided p-value of McNemar's test of accuracy_norm, model vs reference.",
  },
];

/** Options of {@link ChoiceTask}. */
export interface ChoiceTaskOptions {
  /**
   * Text the items' sentences come from: a path to a UTF-8 file or `{ text, name }`, cut into sentences by
   * {@link splitSentences}. @default the held-out split of the Brown corpus, one corpus sentence a sentence
   */
  readonly dataSource?: PerplexityData;
  /** Tokenizer to use. @default `model.tokenizer`, else `builtinTokenizer(model.config)` */
  readonly tokenizer?: Tokenizer;
  /**
   * A reference model (or a factory, as the kld task's) scored on the same items: the row then has its accuracies
   * and McNemar's paired test of the model against it. @default none
   */
  readonly reference?: KldReference;
  /** Name of the reference for the report. @default its `info.name` and `info.dtype` */
  readonly referenceName?: string;
  /** Row name. @default 'choice' */
  readonly name?: string;
}

/** Per item, whether the arg-max of the summed and of the length-normalised log-likelihood is the true choice. */
export interface ChoiceAnswers {
  /** 1 where the largest summed log-likelihood is the true continuation's, else 0. */
  readonly correct: Uint8Array;
  /** 1 where the largest log-likelihood ÷ UTF-8 bytes is the true continuation's, else 0. */
  readonly correctNorm: Uint8Array;
}

const utf8 = new TextEncoder();

/** Items scored per cell (a cell is a progress step and a budget check). */
const ITEMS_PER_CELL = 50;

/** The index of the largest value (the first on ties, as NumPy's `argmax`). */
function argmax(values: readonly number[]): number {
  let best = 0;
  for (let i = 1; i < values.length; i++) if ((values[i] as number) > (values[best] as number)) best = i;
  return best;
}

/**
 * Summed log-likelihood, in nats, of each continuation of `item` given its context, in one forward pass of
 * `choices` rows. A row is the context's tokens followed by the continuation's (the continuation encoded with the
 * space that joins it, as lm-eval does), cut from the left to `maxContext + 1` tokens when longer; rows are
 * padded on the right (a causal model's earlier positions never see the padding) and only the continuation's
 * targets are summed.
 */
export async function choiceLogLikelihoods(
  model: Model,
  tokenizer: Tokenizer,
  item: ChoiceItem,
): Promise<number[]> {
  const vocab = model.config.vocabSize;
  const context = tokenizer.encode(item.context);
  const rows = item.choices.map((choice) => {
    const continuation = tokenizer.encode(` ${choice}`);
    const ids = [...context, ...continuation].slice(-(model.config.maxContext + 1));
    for (const id of ids)
      if (id < 0 || id >= vocab)
        throw new DantinoxError('INVALID_INPUT', messages.tokenOutOfVocab(id, vocab, tokenizer.name));
    // Target j is token j + 1: the continuation's targets start at its first token's position − 1 (at least 0).
    return { ids, scoreFrom: Math.max(0, ids.length - continuation.length - 1) };
  });
  const t = Math.max(...rows.map((r) => r.ids.length - 1));
  const inputs = new Int32Array(rows.length * t);
  const targets = new BigInt64Array(rows.length * t);
  for (const [r, row] of rows.entries()) {
    inputs.set(row.ids.slice(0, -1), r * t);
    for (let j = 0; j + 1 < row.ids.length; j++) targets[r * t + j] = BigInt(row.ids[j + 1] as number);
  }
  const logits = await model.forward(inputs, { batch: rows.length, seq: t });
  const { nll } = await (await logitScorer()).nll(logits.data, logits.dims[2], targets);
  return rows.map((row, r) => {
    let sum = 0;
    for (let j = row.scoreFrom; j + 1 < row.ids.length; j++) sum -= nll[r * t + j] as number;
    return sum;
  });
}

/**
 * Whether `item` is answered right from its continuations' log-likelihoods `lls`: by the largest sum (accuracy)
 * and by the largest sum ÷ UTF-8 byte length of the continuation without its joining space (accuracy_norm; lm-eval
 * divides by Python's `len`, characters, which is the byte length for ASCII text such as the Brown corpus).
 */
export function choiceVerdicts(item: ChoiceItem, lls: readonly number[]): [boolean, boolean] {
  const normed = lls.map((ll, i) => ll / utf8.encode(item.choices[i] as string).length);
  return [argmax(lls) === item.gold, argmax(normed) === item.gold];
}

/**
 * lm-eval-style multiple choice: each item is a sentence's first ⌈n/2⌉ words and `choiceDistractors + 1`
 * continuations — the sentence's own and those of other sentences of about its length in bytes
 * ({@link buildChoiceItems}), `choiceItems` items
 * drawn with the run's seed from the held-out Brown split (sentences of 6 to 30 words) or `--data`. Every
 * continuation is scored by its summed log-likelihood given the context ({@link choiceLogLikelihoods}, one
 * forward pass per item). Reports `accuracy`, `accuracy_norm`, their percentile-bootstrap intervals over items
 * (`ciLevel`, `ciResamples`) and `chance_accuracy`; with a reference, the reference's accuracies on the same items
 * and McNemar's paired test ({@link mcnemarTest}) of each accuracy. Autoregressive models only; the evaluation is
 * bounded by `maxCellMs` like perplexity's.
 */
export class ChoiceTask {
  /** Row name. */
  readonly name: string;
  /** Metric schema. */
  readonly metrics = CHOICE_METRICS;
  readonly #options: ChoiceTaskOptions;

  constructor(options: ChoiceTaskOptions = {}) {
    this.name = options.name ?? 'choice';
    this.#options = options;
  }

  /**
   * Scores the items (and the reference on them).
   *
   * @throws {@link dantinox!DantinoxError} `INVALID_INPUT` when the paradigm is not `ar`, there is no tokenizer, a
   * token id falls outside the vocabulary, the vocabularies differ or the text has too few eligible sentences; `IO`
   * when the data file cannot be read.
   */
  async run(
    paradigm: Paradigm,
    model: Model,
    config: BenchmarkConfig,
    rng: Rng,
    context: BenchmarkContext = standaloneContext(),
  ): Promise<BenchmarkResult> {
    if (paradigm.type !== 'ar') {
      throw new DantinoxError('INVALID_INPUT', messages.decodeNotApplicable(paradigm.type));
    }
    const tokenizer = this.#options.tokenizer ?? model.tokenizer ?? builtinTokenizer(model.config);
    if (tokenizer === undefined) {
      throw new DantinoxError('INVALID_INPUT', messages.perplexityNoTokenizer(model.info.name));
    }
    const { sentences, source } = readSentences(this.#options.dataSource);
    const [itemRng, bootstrapRng] = rng.split(2) as [Rng, Rng];
    const items = buildChoiceItems(sentences, {
      items: config.choiceItems,
      distractors: config.choiceDistractors,
      rng: itemRng,
      source,
    });
    return withReference(this.#options.reference, model, async (reference) => {
      if (reference !== undefined && reference.config.vocabSize !== model.config.vocabSize) {
        throw new DantinoxError(
          'INVALID_INPUT',
          messages.kldVocabMismatch(model.config.vocabSize, reference.config.vocabSize),
        );
      }
      const scored = await this.#score(items, model, reference, tokenizer, config, context);
      const meta: Record<string, MetaValue> = {
        data_source: source,
        tokenizer: tokenizer.name,
        ci_method: clusterBootstrapMethod('item', config.ciLevel, config.ciResamples),
      };
      if (scored.truncation !== undefined) meta['eval_truncated'] = scored.truncation;
      const metrics = choiceMetrics(scored.model, config, bootstrapRng, config.choiceDistractors);
      if (reference !== undefined && scored.reference !== undefined) {
        Object.assign(metrics, mcnemarMetrics(scored.model, scored.reference));
        const method = (key: string): string =>
          mcnemarTest(metrics[`${key}_b`] as number, metrics[`${key}_c`] as number).method;
        meta['reference'] = this.#options.referenceName ?? `${reference.info.name} (${reference.info.dtype})`;
        meta['reference_engine'] = reference.info.engine;
        meta['mcnemar_method'] =
          `accuracy ${method('mcnemar')}, accuracy_norm ${method('mcnemar_norm')}: ${MCNEMAR_METHOD}`;
      }
      return { task: this.name, metrics, meta };
    });
  }

  async #score(
    items: readonly ChoiceItem[],
    model: Model,
    reference: Model | undefined,
    tokenizer: Tokenizer,
    config: BenchmarkConfig,
    context: BenchmarkContext,
  ): Promise<{ model: ChoiceAnswers; reference?: ChoiceAnswers; truncation?: string }> {
    const chunks: (readonly ChoiceItem[])[] = [];
    for (let i = 0; i < items.length; i += ITEMS_PER_CELL) chunks.push(items.slice(i, i + ITEMS_PER_CELL));
    context.plan(chunks.length);
    const budget = new EvalBudget(context.clock, config.maxCellMs);
    const answers = (): { correct: number[]; correctNorm: number[] } => ({ correct: [], correctNorm: [] });
    const mine = answers();
    const theirs = answers();
    const cells: CellRecord[] = [];
    for (const [i, chunk] of budget.batches(chunks)) {
      let right = 0;
      for (const item of chunk) {
        if (context.signal?.aborted) throw context.signal.reason;
        for (const [who, into] of [
          [model, mine],
          [reference, theirs],
        ] as const) {
          if (who === undefined) continue;
          const [acc, norm] = choiceVerdicts(item, await choiceLogLikelihoods(who, tokenizer, item));
          into.correct.push(acc ? 1 : 0);
          into.correctNorm.push(norm ? 1 : 0);
          if (who === model && acc) right++;
        }
      }
      await keepCell(context, cells, {
        task: this.name,
        cell: `items=${i * ITEMS_PER_CELL}-${i * ITEMS_PER_CELL + chunk.length - 1}`,
        phase: 'eval',
        batch: config.choiceDistractors + 1,
        status: 'completed',
        metrics: { correct: right, items: chunk.length },
      });
    }
    const done = (a: { correct: number[]; correctNorm: number[] }): ChoiceAnswers => ({
      correct: Uint8Array.from(a.correct),
      correctNorm: Uint8Array.from(a.correctNorm),
    });
    const truncation = budget.truncation(chunks.length);
    return {
      model: done(mine),
      ...(reference === undefined ? {} : { reference: done(theirs) }),
      ...(truncation === undefined ? {} : { truncation }),
    };
  }
}

/** The items' text: the held-out Brown sentences, or the sentences of `data`. */
function readSentences(data: PerplexityData | undefined): { sentences: string[]; source: string } {
  if (data === undefined)
    return { sentences: brownSentences('held-out'), source: brownSplitName('held-out') };
  if (typeof data === 'object') return { sentences: splitSentences(data.text), source: data.name };
  return { sentences: splitSentences(readTextFile(data, 'validation')), source: data };
}

const sumOf = (values: Uint8Array): number => values.reduce((s, x) => s + x, 0);

/**
 * `accuracy`, `accuracy_norm`, their percentile-bootstrap intervals over items (seeded by `rng`; `ciLevel`,
 * `ciResamples`), `chance_accuracy` = 1 / (distractors + 1) and `items`.
 */
export function choiceMetrics(
  answers: ChoiceAnswers,
  config: Pick<BenchmarkConfig, 'ciLevel' | 'ciResamples'>,
  rng: Rng,
  distractors: number,
): Record<string, number> {
  const n = answers.correct.length;
  const [accCi, normCi] = bootstrapClusters(
    [answers.correct, answers.correctNorm],
    [(t) => (t[0] as number) / n, (t) => (t[1] as number) / n],
    { rng, resamples: config.ciResamples, confidence: config.ciLevel },
  ) as [Interval, Interval];
  return {
    accuracy: sumOf(answers.correct) / n,
    ...intervalMetrics('accuracy', accCi),
    accuracy_norm: sumOf(answers.correctNorm) / n,
    ...intervalMetrics('accuracy_norm', normCi),
    chance_accuracy: 1 / (distractors + 1),
    items: n,
  };
}

/**
 * The reference's accuracies on the same items and McNemar's test of each accuracy ({@link mcnemarTest}): b counts
 * the items the reference answered right and the model wrong, c the reverse.
 */
export function mcnemarMetrics(model: ChoiceAnswers, reference: ChoiceAnswers): Record<string, number> {
  const discordant = (mine: Uint8Array, theirs: Uint8Array): [number, number] => {
    let b = 0;
    let c = 0;
    mine.forEach((m, i) => {
      const r = theirs[i] as number;
      if (r > m) b++;
      else if (m > r) c++;
    });
    return [b, c];
  };
  const n = reference.correct.length;
  const [b, c] = discordant(model.correct, reference.correct);
  const [bn, cn] = discordant(model.correctNorm, reference.correctNorm);
  return {
    reference_accuracy: sumOf(reference.correct) / n,
    reference_accuracy_norm: sumOf(reference.correctNorm) / n,
    mcnemar_b: b,
    mcnemar_c: c,
    mcnemar_p: mcnemarTest(b, c).pValue,
    mcnemar_norm_b: bn,
    mcnemar_norm_c: cn,
    mcnemar_norm_p: mcnemarTest(bn, cn).pValue,
  };
}
