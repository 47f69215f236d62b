/**
 * Workloads of a load: what each request asks. Prompts of an exact token count (by the served model's tokenizer)
 * made of random words (`synthetic`) or Brown-corpus passages (`brown`), prompts from a JSONL file, or a trace to
 * replay (timestamped rows with input and output lengths, as in the Azure LLM inference trace CSV:
 * `TIMESTAMP,ContextTokens,GeneratedTokens`).
 *
 * @packageDocumentation
 */
import { z } from 'zod';
import { brownCorpusText } from '../../benchmarking/data/brown-corpus.js';
import { DantinoxError } from '../../errors.js';
import { parseJsonLines } from '../../json-lines.js';
import { messages } from '../../messages.js';
import type { Tokenizer } from '../../models/tokenizer.js';
import type { Rng } from '../../rng.js';
import { readTextFile } from '../../text-file.js';

/** What one request asks for. */
export interface WorkItem {
  /** The prompt text (a chat request sends it as one user message). */
  readonly prompt: string;
  /** Tokens of the prompt text by the client's tokenizer. */
  readonly inputTokens: number;
  /** Tokens to generate (`max_tokens`, and `min_tokens` with `ignore_eos` when exact lengths are asked). */
  readonly outputTokens: number;
  /** Planned send time from the start of the load, in ms (trace replay only). */
  readonly atMs?: number;
}

/** The requests of a load, drawn in order; `size` is finite for files and traces (they cycle). */
export interface Workload {
  /** Short description for the report (`synthetic 256→128`, `prompts.jsonl`, …). */
  readonly name: string;
  /** Number of distinct items (a load longer than this cycles through them). */
  readonly size: number;
  /** Whether items carry their own send times (a trace). */
  readonly timed: boolean;
  /** Item `i` (0-based; cycles). */
  item(i: number): WorkItem;
}

/** Words that the common BPE vocabularies keep as one token each after a space. */
const WORDS = [
  'the',
  'of',
  'and',
  'to',
  'in',
  'is',
  'that',
  'for',
  'it',
  'as',
  'was',
  'with',
  'be',
  'by',
  'on',
  'not',
  'he',
  'this',
  'are',
  'or',
  'his',
  'from',
  'at',
  'which',
  'but',
  'have',
  'an',
  'had',
  'they',
  'you',
  'were',
  'their',
  'one',
  'all',
  'we',
  'can',
  'her',
  'has',
  'there',
  'been',
];

/**
 * A text of exactly `n` tokens by `tokenizer`, cut from `source` starting at character `from`: the first `n`
 * tokens decoded, then trimmed or extended a token at a time until re-encoding gives `n` (decoding and encoding
 * may merge at the cut).
 *
 * @throws {@link dantinox!DantinoxError} `INVALID_INPUT` when no exact cut is found.
 */
export function exactTokenText(
  source: string,
  n: number,
  tokenizer: Pick<Tokenizer, 'encode' | 'decode'>,
  from = 0,
): string {
  if (n === 0) return '';
  const window = source.slice(from, from + n * 12 + 64);
  const ids = tokenizer.encode(window);
  if (ids.length < n) throw new DantinoxError('INVALID_INPUT', messages.loadPromptTooShort(n, ids.length));
  for (let take = n, attempt = 0; attempt < 16 && take > 0 && take <= ids.length; attempt++) {
    const text = tokenizer.decode(ids.slice(0, take));
    const count = tokenizer.encode(text).length;
    if (count === n) return text;
    take += count > n ? -1 : 1;
  }
  throw new DantinoxError('INVALID_INPUT', messages.loadPromptTooShort(n, 0));
}

/** Options of {@link tokenWorkload}. */
export interface TokenWorkloadOptions {
  /** `synthetic` (random common words) or `brown` (Brown-corpus passages). */
  readonly source: 'synthetic' | 'brown';
  /** Prompt tokens. */
  readonly inputTokens: number;
  /** Tokens to generate. */
  readonly outputTokens: number;
  /** The served model's tokenizer. */
  readonly tokenizer: Tokenizer;
  /** Random source of words or passage offsets. */
  readonly rng: Rng;
  /** Distinct prompts to make (the load cycles through them). @default 64 */
  readonly distinct?: number;
}

/** Prompts of exactly `inputTokens` tokens, each different (no shared prefix for a cache to reuse). */
export function tokenWorkload(options: TokenWorkloadOptions): Workload {
  const { inputTokens, outputTokens, tokenizer, rng } = options;
  const distinct = options.distinct ?? 64;
  const items: WorkItem[] = [];
  const corpus = options.source === 'brown' ? brownCorpusText() : '';
  for (let i = 0; i < distinct; i++) {
    let text: string;
    if (options.source === 'brown') {
      const from = rng.int(Math.max(1, corpus.length - inputTokens * 12 - 64));
      text = exactTokenText(corpus, inputTokens, tokenizer, from);
    } else {
      const words = Array.from({ length: inputTokens + 8 }, () => WORDS[rng.int(WORDS.length)] as string);
      text = exactTokenText(words.join(' '), inputTokens, tokenizer);
    }
    items.push({ prompt: text, inputTokens, outputTokens });
  }
  return {
    name: `${options.source} ${inputTokens}→${outputTokens} tokens`,
    size: items.length,
    timed: false,
    item: (i) => items[i % items.length] as WorkItem,
  };
}

const PromptLineSchema = z.looseObject({
  prompt: z.string().min(1),
  output_tokens: z.number().int().positive().optional(),
  max_tokens: z.number().int().positive().optional(),
});

/**
 * Prompts from a JSONL file: one `{"prompt": "…", "output_tokens"?: n}` object per line (`max_tokens` is read
 * too); blank lines are skipped. Lines without a length generate `outputTokens`.
 *
 * @throws {@link dantinox!DantinoxError} `IO` when unreadable; `INVALID_INPUT` naming the first bad line.
 */
export function jsonlWorkload(path: string, outputTokens: number, tokenizer: Tokenizer): Workload {
  const lines = parseJsonLines(
    readTextFile(path, 'the --prompts'),
    PromptLineSchema,
    (line, problem) =>
      new DantinoxError(
        'INVALID_INPUT',
        messages.loadBadPromptLine(
          path,
          line,
          problem.kind === 'not-json' ? 'not JSON' : 'expected {"prompt": "…", "output_tokens"?: n}',
        ),
      ),
  );
  const items = lines.map(
    (l): WorkItem => ({
      prompt: l.prompt,
      inputTokens: tokenizer.encode(l.prompt).length,
      outputTokens: l.output_tokens ?? l.max_tokens ?? outputTokens,
    }),
  );
  if (items.length === 0)
    throw new DantinoxError('INVALID_INPUT', messages.loadBadPromptLine(path, 0, 'no prompt in the file'));
  return { name: path, size: items.length, timed: false, item: (i) => items[i % items.length] as WorkItem };
}

/** A trace row: seconds since the first row, prompt and output lengths in tokens. */
export interface TraceRow {
  /** Seconds after the first row. */
  readonly atS: number;
  /** Prompt tokens. */
  readonly inputTokens: number;
  /** Generated tokens. */
  readonly outputTokens: number;
}

/** Seconds since the epoch of an Azure trace timestamp (`2023-11-16 18:15:46.6805900`, UTC) or a plain number. */
function traceSeconds(text: string): number | undefined {
  const t = text.trim();
  if (/^\d+(\.\d+)?$/.test(t)) return Number(t);
  const m = /^(\d{4})-(\d\d)-(\d\d)[ T](\d\d):(\d\d):(\d\d(?:\.\d+)?)Z?$/.exec(t);
  if (m === null) return undefined;
  const [, y, mo, d, h, mi, s] = m.map(Number) as [number, number, number, number, number, number, number];
  return Date.UTC(y, mo - 1, d, h, mi, 0) / 1000 + s;
}

/**
 * Reads a trace CSV with a header naming `TIMESTAMP`, `ContextTokens` and `GeneratedTokens` (the Azure LLM
 * inference trace columns, any order, case-insensitive); timestamps as `YYYY-MM-DD HH:MM:SS.fffffff` or seconds.
 *
 * @throws {@link dantinox!DantinoxError} `INVALID_INPUT` naming the first bad row or the missing column.
 */
export function parseTrace(text: string, path: string): TraceRow[] {
  const lines = text.split(/\r?\n/).filter((l) => l.trim() !== '');
  const header = (lines[0] ?? '').split(',').map((h) => h.trim().toLowerCase());
  const col = (name: string): number => {
    const i = header.indexOf(name.toLowerCase());
    if (i < 0) throw new DantinoxError('INVALID_INPUT', messages.loadBadTrace(path, 1, `no ${name} column`));
    return i;
  };
  const [ts, ctx, gen] = [col('TIMESTAMP'), col('ContextTokens'), col('GeneratedTokens')];
  const rows: TraceRow[] = [];
  let first: number | undefined;
  for (const [i, line] of lines.slice(1).entries()) {
    const cells = line.split(',');
    const at = traceSeconds(cells[ts] ?? '');
    const input = Number(cells[ctx]);
    const output = Number(cells[gen]);
    if (at === undefined || !Number.isInteger(input) || input < 0 || !Number.isInteger(output) || output < 1)
      throw new DantinoxError(
        'INVALID_INPUT',
        messages.loadBadTrace(path, i + 2, 'expected a timestamp, ContextTokens ≥ 0 and GeneratedTokens ≥ 1'),
      );
    first ??= at;
    rows.push({ atS: at - first, inputTokens: input, outputTokens: output });
  }
  if (rows.length === 0) throw new DantinoxError('INVALID_INPUT', messages.loadBadTrace(path, 2, 'no rows'));
  return rows;
}

/** A trace replayed: each row a request of its lengths (Brown-corpus text), sent at its time. */
export function traceWorkload(path: string, tokenizer: Tokenizer, rng: Rng): Workload {
  const rows = parseTrace(readTextFile(path, 'the --trace'), path);
  const corpus = brownCorpusText();
  const items = rows.map((row): WorkItem => {
    const from = rng.int(Math.max(1, corpus.length - row.inputTokens * 12 - 64));
    return {
      prompt: exactTokenText(corpus, row.inputTokens, tokenizer, from),
      inputTokens: row.inputTokens,
      outputTokens: row.outputTokens,
      atMs: row.atS * 1000,
    };
  });
  return { name: path, size: items.length, timed: true, item: (i) => items[i % items.length] as WorkItem };
}
