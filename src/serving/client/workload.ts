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

/** A later turn of a conversation: the user's next message, and the answer's length. */
export interface WorkTurn {
  /** The user's message. */
  readonly prompt: string;
  /** Tokens of the message by the client's tokenizer (the conversation's history comes on top). */
  readonly inputTokens: number;
  /** Tokens to generate for it. */
  readonly outputTokens: number;
}

/** What one request asks for — or, with `followUps`, the first turn of a conversation. */
export interface WorkItem {
  /** The prompt text (a chat request sends it as one user message). */
  readonly prompt: string;
  /** Tokens of the prompt text by the client's tokenizer. */
  readonly inputTokens: number;
  /** Tokens to generate (`max_tokens`, and `min_tokens` with `ignore_eos` when exact lengths are asked). */
  readonly outputTokens: number;
  /** Planned send time from the start of the load, in ms (trace replay only). */
  readonly atMs?: number;
  /**
   * The conversation's later turns: each is sent when the answer before it has ended, with the whole history (every
   * earlier message and the model's own answers) before its message.
   */
  readonly followUps?: readonly WorkTurn[];
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
  /** Distinct prompts (conversations) to make (the load cycles through them). @default 64 */
  readonly distinct?: number;
  /**
   * Tokens at the start of every prompt that are shared: the same text across the prompts of a group, then a
   * different rest. @default 0
   */
  readonly prefixTokens?: number;
  /** Groups of prompts sharing one prefix (prompt i belongs to group i mod groups). @default 1 */
  readonly prefixGroups?: number;
  /** Turns of each conversation, the first included; each turn's message has `inputTokens` tokens. @default 1 */
  readonly turns?: number;
}

/**
 * Prompts of exactly `inputTokens` tokens: each different, or with a shared prefix of `prefixTokens` tokens per
 * group (a controlled share for a server's prefix cache: prefixTokens / inputTokens of a prompt after its group's
 * first); with `turns` > 1, conversations whose every message has `inputTokens` tokens.
 *
 * @throws {@link dantinox!DantinoxError} `INVALID_OPTION` when the prefix is not shorter than the prompt.
 */
export function tokenWorkload(options: TokenWorkloadOptions): Workload {
  const { inputTokens, outputTokens, tokenizer, rng } = options;
  const distinct = options.distinct ?? 64;
  const prefixTokens = options.prefixTokens ?? 0;
  const groups = options.prefixGroups ?? 1;
  const turns = options.turns ?? 1;
  if (prefixTokens >= inputTokens && prefixTokens > 0)
    throw new DantinoxError('INVALID_OPTION', messages.loadPrefixTooLong(prefixTokens, inputTokens));
  const corpus = options.source === 'brown' || prefixTokens > 0 ? brownCorpusText() : '';
  const text = (n: number): string => {
    if (options.source === 'brown') {
      const from = rng.int(Math.max(1, corpus.length - n * 12 - 64));
      return exactTokenText(corpus, n, tokenizer, from);
    }
    const words = Array.from({ length: n + 8 }, () => WORDS[rng.int(WORDS.length)] as string);
    return exactTokenText(words.join(' '), n, tokenizer);
  };
  // A group's prefix is a Brown passage; a prompt is its group's prefix and a rest, cut so the whole is exact.
  const prefixes = Array.from({ length: prefixTokens > 0 ? groups : 0 }, () =>
    exactTokenText(
      corpus,
      prefixTokens,
      tokenizer,
      rng.int(Math.max(1, corpus.length - prefixTokens * 12 - 64)),
    ),
  );
  const prompt = (i: number): string => {
    const prefix = prefixes[i % Math.max(1, prefixes.length)];
    if (prefix === undefined) return text(inputTokens);
    return exactTokenText(`${prefix}\n${text(inputTokens - prefixTokens + 8)}`, inputTokens, tokenizer);
  };
  const items = Array.from(
    { length: distinct },
    (_, i): WorkItem => ({
      prompt: prompt(i),
      inputTokens,
      outputTokens,
      ...(turns > 1
        ? {
            followUps: Array.from({ length: turns - 1 }, () => ({
              prompt: text(inputTokens),
              inputTokens,
              outputTokens,
            })),
          }
        : {}),
    }),
  );
  const shape = [
    `${options.source} ${inputTokens}→${outputTokens} tokens`,
    ...(prefixTokens > 0 ? [`shared prefix ${prefixTokens} × ${groups} group(s)`] : []),
    ...(turns > 1 ? [`${turns} turns`] : []),
  ];
  return {
    name: shape.join(', '),
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

/** One message of a conversation file, in either of the two shapes read. */
const ShareGptTurnSchema = z.union([
  z.looseObject({ from: z.string(), value: z.string() }).transform((m) => ({ role: m.from, text: m.value })),
  z
    .looseObject({ role: z.string(), content: z.string() })
    .transform((m) => ({ role: m.role, text: m.content })),
]);

/** Roles of the user's messages (ShareGPT's `human`) and of the model's answers (ShareGPT's `gpt`). */
const USER_ROLES = new Set(['human', 'user']);
const MODEL_ROLES = new Set(['gpt', 'assistant', 'chatgpt', 'bard', 'bing']);

const ConversationLineSchema = z
  .union([
    z.looseObject({ conversations: z.array(ShareGptTurnSchema) }).transform((c) => c.conversations),
    z.looseObject({ messages: z.array(ShareGptTurnSchema) }).transform((c) => c.messages),
  ])
  .refine((turns) => turns.some((m) => USER_ROLES.has(m.role) && m.text !== ''));

/**
 * Conversations from a JSONL file, one per line, ShareGPT's shape (`{"conversations": [{"from": "human" | "gpt",
 * "value"}]}`) or the chat API's (`{"messages": [{"role": "user" | "assistant", "content"}]}`): each user message is
 * a turn, sent with the whole history before it (the model's own answers in it, not the file's); the answer
 * after it in the file gives its length in tokens (by the client's tokenizer), else `outputTokens`. System and
 * other messages are skipped, and so is a leading answer.
 *
 * @throws {@link dantinox!DantinoxError} `IO` when unreadable; `INVALID_INPUT` naming the first bad line or a line
 *   without a user message.
 */
export function conversationWorkload(path: string, outputTokens: number, tokenizer: Tokenizer): Workload {
  const bad = (line: number, what: string): DantinoxError =>
    new DantinoxError('INVALID_INPUT', messages.loadBadConversation(path, line, what));
  const lines = parseJsonLines(
    readTextFile(path, 'the --conversations'),
    ConversationLineSchema,
    (line, problem) =>
      bad(line, problem.kind === 'not-json' ? 'not JSON' : 'not a conversation with a message from the user'),
  );
  const items = lines.map((messages_): WorkItem => {
    const turns: WorkTurn[] = [];
    for (const [k, m] of messages_.entries()) {
      if (!USER_ROLES.has(m.role) || m.text === '') continue;
      const answer = messages_[k + 1];
      turns.push({
        prompt: m.text,
        inputTokens: tokenizer.encode(m.text).length,
        outputTokens:
          answer !== undefined && MODEL_ROLES.has(answer.role) && answer.text !== ''
            ? tokenizer.encode(answer.text).length
            : outputTokens,
      });
    }
    const [first, ...followUps] = turns as [WorkTurn, ...WorkTurn[]];
    return { ...first, ...(followUps.length > 0 ? { followUps } : {}) };
  });
  if (items.length === 0) throw bad(0, 'no conversation in the file');
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
  /**
   * The prompt's blocks of {@link TRACE_BLOCK_TOKENS} tokens by id (a Mooncake trace's `hash_ids`): rows that share
   * leading ids share that prefix of their prompts.
   */
  readonly blocks?: readonly number[];
}

/** Tokens of one prefix block of a Mooncake trace (its `hash_ids` count blocks of this many tokens). */
export const TRACE_BLOCK_TOKENS = 512;

const MooncakeRowSchema = z.looseObject({
  timestamp: z.number().nonnegative(),
  input_length: z.number().int().positive(),
  output_length: z.number().int().positive(),
  hash_ids: z.array(z.number().int()).optional(),
});

/**
 * Reads a Mooncake trace: JSONL rows `{"timestamp": ms, "input_length": n, "output_length": m, "hash_ids": [...]}`
 * (`hash_ids` optional), times from the first row.
 *
 * @throws {@link dantinox!DantinoxError} `INVALID_INPUT` naming the first bad row.
 */
export function parseMooncakeTrace(text: string, path: string): TraceRow[] {
  const parsed = parseJsonLines(
    text,
    MooncakeRowSchema,
    (row, problem) =>
      new DantinoxError(
        'INVALID_INPUT',
        messages.loadBadTrace(
          path,
          row,
          problem.kind === 'not-json'
            ? 'not JSON'
            : `field ${problem.path === '' ? '(row)' : problem.path}: expected {"timestamp": ms ≥ 0, "input_length": n ≥ 1, "output_length": n ≥ 1, "hash_ids"?: [ids]}`,
        ),
      ),
  );
  if (parsed.length === 0)
    throw new DantinoxError('INVALID_INPUT', messages.loadBadTrace(path, 1, 'no rows'));
  const first = parsed[0]?.timestamp ?? 0;
  return parsed.map((r) => ({
    atS: (r.timestamp - first) / 1000,
    inputTokens: r.input_length,
    outputTokens: r.output_length,
    ...(r.hash_ids === undefined ? {} : { blocks: r.hash_ids }),
  }));
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

/**
 * A trace replayed: each row a request of its lengths, sent at its time, its prompt Brown-corpus text — a Mooncake
 * row's blocks the same text wherever the same block id appears (so rows sharing leading blocks share that prefix,
 * as the trace's prefix-cache hits did), the rest of its prompt its own. A `.jsonl` file is a Mooncake trace, any
 * other an Azure CSV trace (see {@link parseTrace}). Prompts are made when first sent.
 */
export function traceWorkload(path: string, tokenizer: Tokenizer, rng: Rng): Workload {
  const text = readTextFile(path, 'the --trace');
  const rows = path.toLowerCase().endsWith('.jsonl')
    ? parseMooncakeTrace(text, path)
    : parseTrace(text, path);
  const corpus = brownCorpusText();
  const passage = (n: number, from: number): string =>
    exactTokenText(corpus, n, tokenizer, from % Math.max(1, corpus.length - n * 12 - 64));
  const blockTexts = new Map<number, string>();
  // A block's text is a function of its id alone (Knuth's multiplicative hash picks its passage).
  const block = (id: number): string => {
    let b = blockTexts.get(id);
    if (b === undefined) {
      b = passage(TRACE_BLOCK_TOKENS, Math.abs(Math.imul(id, 2654435761)));
      blockTexts.set(id, b);
    }
    return b;
  };
  const seeds = rows.map(() => rng.int(2 ** 31));
  const items = new Map<number, WorkItem>();
  const make = (i: number): WorkItem => {
    const row = rows[i] as TraceRow;
    const shared = (row.blocks ?? []).slice(0, Math.floor(row.inputTokens / TRACE_BLOCK_TOKENS)).map(block);
    const own = row.inputTokens - shared.length * TRACE_BLOCK_TOKENS;
    const prompt =
      shared.length === 0
        ? passage(row.inputTokens, seeds[i] ?? 0)
        : // Blocks end on a line break, so that no token of a block merges with the text after it.
          exactTokenText(
            `${shared.map((b) => `${b}\n`).join('')}${passage(own + 8, seeds[i] ?? 0)}`,
            row.inputTokens,
            tokenizer,
          );
    return { prompt, inputTokens: row.inputTokens, outputTokens: row.outputTokens, atMs: row.atS * 1000 };
  };
  return {
    name: path,
    size: rows.length,
    timed: true,
    item: (i) => {
      const k = i % rows.length;
      let item = items.get(k);
      if (item === undefined) {
        item = make(k);
        items.set(k, item);
      }
      return item;
    },
  };
}
