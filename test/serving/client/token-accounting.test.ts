import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Gpt2Tokenizer } from '../../../src/models/tokenizers/gpt2-tokenizer.js';
import type { ExchangeRead, TextPiece } from '../../../src/serving/client/read-exchange.js';
import {
  apportion,
  countTokens,
  pieceTokenCounts,
  tokenTimings,
} from '../../../src/serving/client/token-accounting.js';
import type { Usage } from '../../../src/serving/openai-protocol.js';

const gpt2 = new Gpt2Tokenizer();
/** One token per character: counts are obvious. */
const chars = { encode: (t: string) => [...t].map((c) => c.charCodeAt(0)) };
/** A tokenizer that merges `ab` into one token: a chunk boundary inside `ab` makes a 0-token chunk. */
const merging = {
  encode: (t: string) =>
    t
      .replace(/ab/g, 'X')
      .split('')
      .map(() => 0),
};

type Piece = [atMs: number, text: string, channel?: TextPiece['channel'], soFar?: number | undefined];

const read = (pieces: Piece[], endedAtMs: number, usage?: Usage, streamed = true): ExchangeRead => ({
  status: 'ok',
  sentAtMs: 0,
  endedAtMs,
  pieces: pieces.map(([atMs, text, channel = 'answer', soFar], event) => ({
    atMs,
    text,
    channel,
    event,
    ...(soFar === undefined ? {} : { serverTokensSoFar: soFar }),
  })),
  ...(usage === undefined ? {} : { usage }),
  streamed,
});

/** A stream of `tokens` server tokens of text `word`, `perChunk` per chunk, the first at 20 ms, then `gapMs` apart. */
function stream(word: string, tokens: number, perChunk: number, gapMs: number, running = false): Piece[] {
  const out: Piece[] = [];
  for (let i = 0; i < tokens; i += perChunk) {
    const n = Math.min(perChunk, tokens - i);
    out.push([20 + (i / perChunk) * gapMs, word.repeat(n), 'answer', running ? i + n : undefined]);
  }
  return out;
}

const usage = (completion: number, extra: Partial<Usage> = {}): Usage => ({
  prompt_tokens: 10,
  completion_tokens: completion,
  ...extra,
});

describe('token accounting against what servers send', () => {
  // ` tok` is two GPT-2 tokens (" to" + "k"), ` the` one: a server whose tokens are ` tok` is a server with another
  // vocabulary, the defect's case; ` the` is a server whose tokenizer the client has.
  expect(gpt2.encode(' tok tok')).toHaveLength(4);
  expect(gpt2.encode(' the the')).toHaveLength(2);

  for (const perChunk of [1, 2, 4]) {
    for (const word of [' tok', ' the']) {
      const gapMs = 10 * perChunk; // 10 ms per token, as the server generated them
      it(`${perChunk} token(s) per chunk of "${word}", usage reported: 32 tokens, ITL 10 ms`, () => {
        const t = tokenTimings(
          read(stream(word, 32, perChunk, gapMs), 20 + (32 / perChunk) * gapMs, usage(32)),
          gpt2,
        );
        expect(t.outputTokens).toBe(32);
        expect(t.tokenSource).toBe('server');
        expect(t.clientTokens).toBe(word === ' tok' ? 64 : 32);
        expect(t.chunkTokens).toEqual(Array(32 / perChunk).fill(perChunk));
        expect(t.chunkTokens.reduce((a, b) => a + b, 0)).toBe(32);
        // Every token after the first chunk's: the chunk gap spread over the chunk's tokens.
        expect(t.itlMs).toHaveLength(32 - perChunk);
        for (const itl of t.itlMs) expect(itl).toBeCloseTo(10, 12);
        expect(t.tokenSplit).toBe(
          word === ' the' ? 'tokenizer' : perChunk === 1 ? 'one-per-chunk' : 'proportional',
        );
      });

      it(`${perChunk} token(s) per chunk of "${word}", no usage: the client's count, marked as such`, () => {
        const t = tokenTimings(read(stream(word, 32, perChunk, gapMs), 400), gpt2);
        expect(t.tokenSource).toBe('client');
        expect(t.outputTokens).toBe(word === ' tok' ? 64 : 32);
        expect(t.tokenSplit).toBe('tokenizer');
      });
    }

    it(`${perChunk} token(s) per chunk with a running usage on every chunk: each chunk's count is the server's`, () => {
      const c = countTokens(read(stream(' tok', 32, perChunk, 10, true), 400, usage(32)), gpt2);
      expect(c).toMatchObject({ total: 32, source: 'server', split: 'server', clientTotal: 64 });
      expect(c.perPiece).toEqual(Array(32 / perChunk).fill(perChunk));
    });
  }

  it('uneven chunks of another vocabulary: the server total spread by the client counts, largest remainder', () => {
    // Server chunks of 1, 3 and 2 tokens; the client counts 2, 6 and 4 (` tok` = 2): the split is exact here.
    const c = countTokens(
      read(
        [
          [10, ' tok'],
          [20, ' tok tok tok'],
          [30, ' tok tok'],
        ],
        30,
        usage(6),
      ),
      gpt2,
    );
    expect(c).toMatchObject({ total: 6, split: 'proportional', clientTotal: 12 });
    expect(c.perPiece).toEqual([1, 3, 2]);
  });

  it("a count from the server's /tokenize stands for usage when there is none; usage wins when both exist", () => {
    const pieces = stream(' tok', 8, 2, 10);
    expect(countTokens(read(pieces, 60), gpt2, 8)).toMatchObject({
      total: 8,
      source: 'server',
      clientTotal: 16,
    });
    expect(countTokens(read(pieces, 60, usage(8)), gpt2, 99)).toMatchObject({ total: 8, source: 'server' });
  });

  it('a running usage that disagrees with the final usage is not trusted for the split', () => {
    const pieces = stream(' the', 4, 2, 10, true);
    const c = countTokens(read(pieces, 60, usage(5)), gpt2);
    expect(c.total).toBe(5);
    expect(c.split).toBe('proportional');
  });

  it('reasoning: TTFT at the first thinking token, the answer timed apart, tokens counted per channel', () => {
    const r = read(
      [
        [15, ' the the', 'reasoning'],
        [25, ' the', 'reasoning'],
        [40, ' of', 'answer'],
        [50, ' of of', 'answer'],
      ],
      55,
      usage(6, { completion_tokens_details: { reasoning_tokens: 3 } }),
    );
    const t = tokenTimings(r, gpt2);
    expect(t.ttftMs).toBe(15);
    expect(t.ttfaMs).toBe(40);
    expect(t.outputTokens).toBe(6);
    expect(t.reasoningTokens).toBe(3);
    expect(t.chunkTokens).toEqual([2, 1, 1, 2]);
    expect(t.itlMs).toEqual([10, 15, 5, 5]);
    // Without the server's reasoning count, the thinking pieces' own tokens.
    expect(countTokens({ pieces: r.pieces, usage: usage(6) }, gpt2).reasoning).toBe(3);
  });

  it("thinking and answer in one chunk share the chunk's running count as the client counted them", () => {
    const r = read([[10, ' the', 'reasoning']], 30, usage(3));
    const pieces: TextPiece[] = [
      { atMs: 10, text: ' the', channel: 'reasoning', event: 0, serverTokensSoFar: 1 },
      { atMs: 20, text: ' the', channel: 'reasoning', event: 1 },
      { atMs: 20, text: ' of', channel: 'answer', event: 1, serverTokensSoFar: 3 },
    ];
    const c = countTokens({ ...r, pieces }, gpt2);
    expect(c.split).toBe('server');
    expect(c.perPiece).toEqual([1, 1, 1]);
    expect(c.reasoning).toBe(2);
  });
});

describe('per-token timings', () => {
  it('counts several tokens per chunk and spreads each gap over its tokens (ITL per token, not per chunk)', () => {
    const t = tokenTimings(
      read(
        [
          [10, 'ab'],
          [16, 'c'],
          [20, 'de'],
        ],
        25,
      ),
      chars,
    );
    expect(t.chunkTokens).toEqual([2, 1, 2]);
    expect(t.chunkAtMs).toEqual([10, 16, 20]);
    expect(t.outputTokens).toBe(5);
    expect(t.ttftMs).toBe(10);
    expect(t.ttstMs).toBe(10); // token 2 came in the first chunk
    expect(t.itlMs).toEqual([6, 2, 2]);
    expect(t.tpotMs).toBe((25 - 10) / 4);
    expect(t.e2eMs).toBe(25);
  });

  it('keeps the sum exact when a chunk boundary merges tokens (a 0-token chunk adds its gap to the next)', () => {
    const three = ['a', 'b', 'c'].map((text) => ({ text, channel: 'answer' as const }));
    expect(pieceTokenCounts(three, merging)).toEqual([1, 0, 1]);
    const t = tokenTimings(
      read(
        [
          [10, 'a'],
          [14, 'b'],
          [20, 'c'],
        ],
        20,
      ),
      merging,
    );
    expect(t.outputTokens).toBe(2);
    expect(t.itlMs).toEqual([10]);
  });

  it('counts each channel as its own text: a thinking piece does not merge with the answer', () => {
    const pieces = [
      { text: 'a', channel: 'reasoning' as const },
      { text: 'b', channel: 'answer' as const },
      { text: 'b', channel: 'reasoning' as const },
    ];
    expect(pieceTokenCounts(pieces, merging)).toEqual([1, 1, 0]);
  });

  it('one output token: no TPOT, no time to second token, no ITL', () => {
    const t = tokenTimings(read([[7, 'a']], 9), chars);
    expect([t.ttftMs, t.outputTokens, t.itlMs]).toEqual([7, 1, []]);
    expect(t.tpotMs).toBeNaN();
    expect(t.ttstMs).toBeNaN();
  });

  it('a whole response: tokens counted, no TTFT', () => {
    const t = tokenTimings(read([[30, 'abcd']], 30, undefined, false), chars);
    expect(t.outputTokens).toBe(4);
    expect(t.ttftMs).toBeNaN();
    expect(t.ttfaMs).toBeNaN();
    expect(t.e2eMs).toBe(30);
  });
});

describe('apportion', () => {
  it('known answers: floors, then the largest remainders, the earlier slot first on a tie', () => {
    expect(apportion(6, [2, 6, 4])).toEqual([1, 3, 2]);
    expect(apportion(3, [1, 1, 1, 1])).toEqual([1, 1, 1, 0]);
    expect(apportion(5, [1, 1])).toEqual([3, 2]);
    expect(apportion(4, [0, 0])).toEqual([2, 2]); // no weight: equal shares
    expect(apportion(4, [-1, 3])).toEqual([0, 4]); // a merge's −1 weighs nothing
    expect(apportion(0, [5, 5])).toEqual([0, 0]);
    expect(apportion(7, [])).toEqual([]);
  });

  it('adds up to the total, and each share is within one of its quota', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 500 }),
        fc.array(fc.integer({ min: 0, max: 50 }), { minLength: 1, maxLength: 40 }),
        (total, weights) => {
          const shares = apportion(total, weights);
          expect(shares.reduce((a, b) => a + b, 0)).toBe(total);
          const sum = weights.reduce((a, b) => a + b, 0);
          for (const [i, share] of shares.entries()) {
            const quota = sum === 0 ? total / weights.length : (total * (weights[i] ?? 0)) / sum;
            expect(Math.abs(share - quota)).toBeLessThan(1);
          }
        },
      ),
    );
  });
});
