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
 * continuation (the rest). `items` eligible sentences are drawn without replacement (all of them, in a seeded
 * order, when there are fewer); each item's `distractors` continuations are those of other eligible sentences
 * drawn uniformly, distinct in text from the true one and from each other; the true continuation is put at a
 * uniformly drawn position. Deterministic for a given `rng` state.
 *
 * @throws {@link dantinox!DantinoxError} `INVALID_INPUT` when fewer than `distractors + 1` sentences are eligible
 * or their continuations have fewer than `distractors + 1` distinct texts.
 */
export function buildChoiceItems(sentences: readonly string[], options: ChoiceItemOptions): ChoiceItem[] {
  const { items, distractors, rng, source } = options;
  const eligible = sentences
    .map((s) => s.replace(/\s+/g, ' ').trim())
    .filter((s) => {
      const n = s.split(' ').length;
      return n >= CHOICE_MIN_WORDS && n <= CHOICE_MAX_WORDS;
    })
    .map(cut);
  const distinct = new Set(eligible.map((e) => e.continuation)).size;
  if (eligible.length < distractors + 1 || distinct < distractors + 1) {
    throw new DantinoxError(
      'INVALID_INPUT',
      messages.choiceTooFewSentences(source, Math.min(eligible.length, distinct), distractors),
    );
  }
  // A partial Fisher–Yates shuffle: the first `count` entries of `order` are the items' sentences.
  const order = Array.from(eligible.keys());
  const count = Math.min(items, eligible.length);
  for (let i = 0; i < count; i++) {
    const j = i + rng.int(order.length - i);
    [order[i], order[j]] = [order[j] as number, order[i] as number];
  }
  return order.slice(0, count).map((index) => {
    const { context, continuation } = eligible[index] as { context: string; continuation: string };
    const taken = new Set([continuation]);
    const others: string[] = [];
    while (others.length < distractors) {
      const other = (eligible[rng.int(eligible.length)] as { continuation: string }).continuation;
      if (taken.has(other)) continue;
      taken.add(other);
      others.push(other);
    }
    const gold = rng.int(distractors + 1);
    others.splice(gold, 0, continuation);
    return { context, choices: others, gold };
  });
}
