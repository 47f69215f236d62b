/**
 * The items of the multiple-choice task: sentences cut into a context and its true continuation, each beside
 * distractor continuations taken from other sentences, in the style of lm-eval's log-likelihood tasks.
 *
 * @packageDocumentation
 */
import { DantinoxError } from '../../errors.js';
import { messages } from '../../messages.js';
import type { Rng } from '../../rng.js';

/** One multiple-choice item: a context and `k + 1` continuations, one of them the sentence's own. */
export interface ChoiceItem {
  /** The first words of a sentence. */
  readonly context: string;
  /** The continuations, without the space that joins them to the context; `choices[gold]` is the true one. */
  readonly choices: readonly string[];
  /** Index of the true continuation in `choices`. */
  readonly gold: number;
}

/** Fewest words a sentence needs to make an item (a context and a continuation of at least three words each). */
export const CHOICE_MIN_WORDS = 6;
/** Most words a sentence may have to make an item (so that an item fits a small model's context). */
export const CHOICE_MAX_WORDS = 30;
/**
 * Most a distractor's UTF-8 byte length may differ from the true continuation's, as a fraction of the latter:
 * continuations of one length, so that a summed log-likelihood cannot pick the answer by its length alone.
 */
export const CHOICE_LENGTH_TOLERANCE = 0.1;

/**
 * Sentences of a plain text: one per line, and a line cut after `.`, `!` or `?` (optionally followed by a closing
 * quote or bracket) followed by white space. Empty pieces are dropped, white space runs become one space.
 */
export function splitSentences(text: string): string[] {
  return text
    .split(/\n|(?<=[.!?]["')\]]?)\s+/)
    .map((s) => s.replace(/\s+/g, ' ').trim())
    .filter((s) => s !== '');
}

/** How a sentence is cut: its first ⌈n/2⌉ words are the context, the other ⌊n/2⌋ the continuation. */
function cut(sentence: string): { context: string; continuation: string } {
  const words = sentence.split(' ');
  const at = Math.ceil(words.length / 2);
  return { context: words.slice(0, at).join(' '), continuation: words.slice(at).join(' ') };
}

const utf8 = new TextEncoder();

/** The first index of the ascending `values` whose value is at least `bound` (`values.length` when none is). */
function lowerBound(values: readonly number[], bound: number): number {
  let lo = 0;
  let hi = values.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((values[mid] as number) < bound) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Options of {@link buildChoiceItems}. */
export interface ChoiceItemOptions {
  /** Items wanted (fewer when fewer sentences are eligible). */
  readonly items: number;
  /** Distractor continuations per item (k). */
  readonly distractors: number;
  /** Draws the sentences, the distractors and the position of the true continuation. */
  readonly rng: Rng;
  /** Name of the text, for error messages. */
  readonly source: string;
}

/**
 * Multiple-choice items from `sentences`. Eligible sentences have {@link CHOICE_MIN_WORDS} to
 * {@link CHOICE_MAX_WORDS} space-separated words; each is cut into a context (its first ⌈n/2⌉ words) and a true
 * continuation (the rest). A sentence makes an item when at least `distractors` other continuation texts have a
 * UTF-8 byte length within {@link CHOICE_LENGTH_TOLERANCE} of its own (|b − b₀| ≤ ⌊0.1 · b₀⌋). `items` such
 * sentences are drawn without replacement (all of them, in a seeded order, when there are fewer); each item's
 * `distractors` continuations are drawn uniformly from those length-matched texts, distinct from the true one and
 * from each other; the true continuation is put at a uniformly drawn position. Deterministic for a given `rng`
 * state.
 *
 * @throws {@link dantinox!DantinoxError} `INVALID_INPUT` when no sentence has `distractors` length-matched
 * continuations to draw from.
 */
export function buildChoiceItems(sentences: readonly string[], options: ChoiceItemOptions): ChoiceItem[] {
  const { items, distractors, rng, source } = options;
  const eligible = sentences
    .map((s) => s.replace(/\s+/g, ' ').trim())
    .filter((s) => {
      const n = s.split(' ').length;
      return n >= CHOICE_MIN_WORDS && n <= CHOICE_MAX_WORDS;
    })
    .map(cut)
    .map((e) => ({ ...e, bytes: utf8.encode(e.continuation).length }));
  // The distinct continuation texts by byte length (then text, for a fixed order): a length range is an index range.
  const texts = [...new Map(eligible.map((e) => [e.continuation, e.bytes])).entries()]
    .map(([text, bytes]) => ({ text, bytes }))
    .sort((a, b) => a.bytes - b.bytes || (a.text < b.text ? -1 : 1));
  const lengths = texts.map((t) => t.bytes);
  // Each eligible sentence's range of length-matched texts, its own continuation among them.
  const candidates = eligible
    .map((e) => {
      const slack = Math.floor(CHOICE_LENGTH_TOLERANCE * e.bytes);
      return {
        ...e,
        from: lowerBound(lengths, e.bytes - slack),
        to: lowerBound(lengths, e.bytes + slack + 1),
      };
    })
    .filter((c) => c.to - c.from - 1 >= distractors);
  if (candidates.length === 0) {
    throw new DantinoxError(
      'INVALID_INPUT',
      messages.choiceTooFewSentences(source, eligible.length, distractors, CHOICE_LENGTH_TOLERANCE),
    );
  }
  // A partial Fisher–Yates shuffle: the first `count` entries of `order` are the items' sentences.
  const order = Array.from(candidates.keys());
  const count = Math.min(items, candidates.length);
  for (let i = 0; i < count; i++) {
    const j = i + rng.int(order.length - i);
    [order[i], order[j]] = [order[j] as number, order[i] as number];
  }
  return order.slice(0, count).map((index) => {
    const { context, continuation, from, to } = candidates[index] as (typeof candidates)[number];
    const taken = new Set([continuation]);
    const others: string[] = [];
    while (others.length < distractors) {
      const other = (texts[from + rng.int(to - from)] as { text: string }).text;
      if (taken.has(other)) continue;
      taken.add(other);
      others.push(other);
    }
    const gold = rng.int(distractors + 1);
    others.splice(gold, 0, continuation);
    return { context, choices: others, gold };
  });
}
