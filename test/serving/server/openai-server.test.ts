/**
 * The OpenAI-compatible server on a real loopback socket over the tiny built-in model: both endpoints, whole and
 * streamed, every response and SSE chunk read by the protocol's schemas; greedy text equals the model's own greedy
 * decode; usage exact; token limits, stop texts, end-of-sequence and seeds honoured; errors are OpenAI bodies with
 * the right status.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Model } from '../../../src/models/index.js';
import {
  ChatCompletionResponseSchema,
  CompletionResponseSchema,
  ErrorBodySchema,
  STREAM_DONE,
  type StreamChunk,
  StreamChunkSchema,
} from '../../../src/serving/openai-protocol.js';
import { renderChatPrompt } from '../../../src/serving/server/chat-prompt.js';
import { OpenAiServer } from '../../../src/serving/server/openai-server.js';
import { greedyDecode, sseData, tinyModel } from './tiny-server.js';

let model: Model;
let server: OpenAiServer;
let url: string;
const bytes = (text: string): number[] => [...new TextEncoder().encode(text)];
const decode = (ids: readonly number[]): string => model.tokenizer?.decode(ids) ?? '';

beforeAll(async () => {
  model = await tinyModel();
  server = new OpenAiServer({ model, name: 'tiny', maxBatch: 4, maxQueue: 8 });
  url = await server.listen({ port: 0 });
});

afterAll(async () => {
  await server.shutdown(1000);
  await model.dispose();
});

const post = (path: string, body: unknown): Promise<Response> =>
  fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

/** Every chunk of a streamed response, read by the schema, and whether it ended with `[DONE]`. */
async function streamed(path: string, body: unknown): Promise<StreamChunk[]> {
  const res = await post(path, body);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('text/event-stream');
  const data = sseData(await res.text());
  expect(data.at(-1)).toBe(STREAM_DONE);
  return data.slice(0, -1).map((d) => StreamChunkSchema.parse(JSON.parse(d)));
}

describe('OpenAiServer /v1/completions', () => {
  it('answers greedily with the text of the model’s own greedy decode and exact usage', async () => {
    const expected = await greedyDecode(model, bytes('Hello'), 12);
    const res = await post('/v1/completions', {
      model: 'tiny',
      prompt: 'Hello',
      max_tokens: 12,
      temperature: 0,
    });
    expect(res.status).toBe(200);
    const body = CompletionResponseSchema.parse(await res.json());
    expect(body.object).toBe('text_completion');
    expect(body.model).toBe('tiny');
    expect(body.choices).toEqual([{ index: 0, text: decode(expected), finish_reason: 'length' }]);
    expect(body.usage).toEqual({ prompt_tokens: 5, completion_tokens: 12, total_tokens: 17 });
    // llama-server's timings: the same counts, times that add up
    const t = body.timings;
    expect([t?.prompt_n, t?.predicted_n]).toEqual([5, 12]);
    expect(t?.prompt_ms).toBeGreaterThan(0);
    expect(t?.predicted_per_token_ms).toBeCloseTo((t?.predicted_ms ?? Number.NaN) / 12, 2);
  });

  it('takes a prompt of token ids', async () => {
    const prompt = [10, 20, 30, 40];
    const expected = await greedyDecode(model, prompt, 5);
    const body = CompletionResponseSchema.parse(
      await (await post('/v1/completions', { prompt, max_tokens: 5, temperature: 0 })).json(),
    );
    expect(body.choices[0]?.text).toBe(decode(expected));
    expect(body.usage?.prompt_tokens).toBe(4);
  });

  it('streams one chunk per released piece, a finish chunk, then the usage chunk and [DONE]', async () => {
    const expected = await greedyDecode(model, bytes('Hello'), 9);
    const chunks = await streamed('/v1/completions', {
      prompt: 'Hello',
      max_tokens: 9,
      temperature: 0,
      stream: true,
      stream_options: { include_usage: true },
    });
    const usage = chunks.at(-1);
    expect(usage?.choices).toEqual([]);
    expect(usage?.usage).toEqual({ prompt_tokens: 5, completion_tokens: 9, total_tokens: 14 });
    const finish = chunks.at(-2);
    expect(finish?.choices).toEqual([{ index: 0, text: '', finish_reason: 'length' }]);
    expect([finish?.timings?.prompt_n, finish?.timings?.predicted_n]).toEqual([5, 9]);
    const pieces = chunks.slice(0, -2);
    for (const c of pieces) {
      expect(c.object).toBe('text_completion');
      expect(c.timings).toBeUndefined();
      expect(c.usage).toBeNull();
      expect(c.choices[0]?.finish_reason).toBeNull();
    }
    expect(pieces.map((c) => c.choices[0]?.text).join('')).toBe(decode(expected));
  });

  it('streams without a usage chunk unless asked', async () => {
    const chunks = await streamed('/v1/completions', {
      prompt: 'Hi',
      max_tokens: 3,
      temperature: 0,
      stream: true,
    });
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe('length');
    expect(chunks.every((c) => c.usage === undefined)).toBe(true);
  });

  it('honours max_tokens of 1 and defaults to the rest of the context', async () => {
    const one = CompletionResponseSchema.parse(
      await (await post('/v1/completions', { prompt: 'abc', max_tokens: 1, temperature: 0 })).json(),
    );
    expect(one.usage?.completion_tokens).toBe(1);
    const rest = CompletionResponseSchema.parse(
      await (await post('/v1/completions', { prompt: 'abc', temperature: 0 })).json(),
    );
    expect(rest.usage?.completion_tokens).toBe(model.config.maxContext - 3);
    expect(rest.choices[0]?.finish_reason).toBe('length');
  });

  it('stops before the first stop text, whole and streamed', async () => {
    // Seeded sampling gives a varied text (the tiny model's greedy text repeats one byte); the same seed gives the
    // same tokens again, so the text with a stop is the prefix before the stop's first occurrence.
    const request = { prompt: 'Hello', max_tokens: 40, temperature: 1, seed: 3 };
    const whole = CompletionResponseSchema.parse(await (await post('/v1/completions', request)).json());
    const text = whole.choices[0]?.text ?? '';
    const at = [...Array(Math.max(0, text.length - 2)).keys()].find(
      (i) => i >= 2 && !text.slice(i, i + 2).includes('\uFFFD') && text.indexOf(text.slice(i, i + 2)) === i,
    );
    expect(at).toBeDefined();
    const stop = text.slice(at as number, (at as number) + 2);
    const body = CompletionResponseSchema.parse(
      await (await post('/v1/completions', { ...request, stop })).json(),
    );
    expect(body.choices[0]?.text).toBe(text.slice(0, at));
    expect(body.choices[0]?.finish_reason).toBe('stop');
    expect(body.usage?.completion_tokens).toBeLessThan(40);
    const chunks = await streamed('/v1/completions', { ...request, stop: [stop, 'never'], stream: true });
    expect(chunks.map((c) => c.choices[0]?.text ?? '').join('')).toBe(text.slice(0, at));
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe('stop');
  });

  it('gives the same sampled text for the same seed', async () => {
    const ask = async (seed: number): Promise<string> =>
      CompletionResponseSchema.parse(
        await (
          await post('/v1/completions', { prompt: 'Hello', max_tokens: 16, temperature: 1, seed })
        ).json(),
      ).choices[0]?.text ?? '';
    const a = await ask(7);
    expect(await ask(7)).toBe(a);
    expect(await ask(8)).not.toBe(a);
  });
});

describe('OpenAiServer /v1/chat/completions', () => {
  const messages = [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'Hi' },
  ] as const;
  const prompt = (): number[] => bytes(renderChatPrompt([...messages]));

  it('answers with the greedy continuation of the documented template', async () => {
    expect(renderChatPrompt([...messages])).toBe('System: Be brief.\nUser: Hi\nAssistant:');
    const expected = await greedyDecode(model, prompt(), 6);
    const res = await post('/v1/chat/completions', { messages, max_completion_tokens: 6, temperature: 0 });
    const body = ChatCompletionResponseSchema.parse(await res.json());
    expect(body.object).toBe('chat.completion');
    expect(body.choices).toEqual([
      { index: 0, message: { role: 'assistant', content: decode(expected) }, finish_reason: 'length' },
    ]);
    expect(body.usage).toEqual({
      prompt_tokens: prompt().length,
      completion_tokens: 6,
      total_tokens: prompt().length + 6,
    });
  });

  it('streams a role chunk, content deltas, a finish chunk and the usage chunk', async () => {
    const expected = await greedyDecode(model, prompt(), 7);
    const chunks = await streamed('/v1/chat/completions', {
      messages,
      max_tokens: 7,
      temperature: 0,
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(chunks[0]?.choices[0]?.delta).toEqual({ role: 'assistant', content: '' });
    expect(chunks.every((c) => c.object === 'chat.completion.chunk')).toBe(true);
    expect(chunks.at(-1)?.usage).toEqual({
      prompt_tokens: prompt().length,
      completion_tokens: 7,
      total_tokens: prompt().length + 7,
    });
    expect(chunks.at(-2)?.choices).toEqual([{ index: 0, delta: {}, finish_reason: 'length' }]);
    expect(
      chunks
        .slice(1, -2)
        .map((c) => c.choices[0]?.delta?.content)
        .join(''),
    ).toBe(decode(expected));
  });
});

describe('OpenAiServer end of sequence', () => {
  it('stops at the end-of-sequence token unless ignore_eos, and not before min_tokens', async () => {
    const ids = await greedyDecode(model, bytes('Hello'), 10);
    const eos = ids[3] as number;
    const first = ids.indexOf(eos);
    const eosServer = new OpenAiServer({ model, name: 'tiny', eosTokenId: eos });
    const eosUrl = await eosServer.listen({ port: 0 });
    try {
      const ask = async (extra: object) =>
        CompletionResponseSchema.parse(
          await (
            await fetch(`${eosUrl}/v1/completions`, {
              method: 'POST',
              body: JSON.stringify({ prompt: 'Hello', max_tokens: 10, temperature: 0, ...extra }),
            })
          ).json(),
        );
      const stopped = await ask({});
      expect(stopped.choices[0]?.finish_reason).toBe('stop');
      expect(stopped.usage?.completion_tokens).toBe(first + 1);
      expect(stopped.choices[0]?.text).toBe(decode(ids.slice(0, first)));
      const ignored = await ask({ ignore_eos: true });
      expect(ignored.usage?.completion_tokens).toBe(10);
      expect(ignored.choices[0]?.finish_reason).toBe('length');
      const atLeast = await ask({ min_tokens: first + 2 });
      expect(atLeast.usage?.completion_tokens).toBeGreaterThanOrEqual(first + 2);
    } finally {
      await eosServer.shutdown(1000);
    }
  });
});

describe('OpenAiServer other routes and errors', () => {
  it('lists the model, says it is healthy', async () => {
    const models = (await (await fetch(`${url}/v1/models`)).json()) as { data: { id: string }[] };
    expect(models.data.map((m) => m.id)).toEqual(['tiny']);
    const health = await fetch(`${url}/health`);
    expect(health.status).toBe(200);
  });

  it("tokenizes and detokenizes with the served model's tokenizer, in vLLM's and llama-server's shapes", async () => {
    const post = async (path: string, body: unknown) =>
      (await (await fetch(`${url}${path}`, { method: 'POST', body: JSON.stringify(body) })).json()) as Record<
        string,
        unknown
      >;
    const ids = model.tokenizer?.encode('Hello, world') ?? [];
    expect(ids.length).toBeGreaterThan(0);
    expect(await post('/tokenize', { model: 'tiny', prompt: 'Hello, world' })).toEqual({
      count: ids.length,
      max_model_len: 128,
      tokens: ids,
    });
    expect((await post('/tokenize', { content: 'Hello, world' }))['tokens']).toEqual(ids);
    expect(await post('/detokenize', { tokens: ids })).toEqual({
      prompt: 'Hello, world',
      content: 'Hello, world',
    });
  });

  const cases: [string, string, unknown, number, string | null][] = [
    ['not JSON', '/v1/completions', '{"prompt":', 400, null],
    ['a JSON array', '/v1/completions', '[1]', 400, null],
    ['max_tokens 0', '/v1/completions', { prompt: 'a', max_tokens: 0 }, 400, 'max_tokens'],
    ['no prompt', '/v1/completions', { max_tokens: 2 }, 400, 'prompt'],
    ['an empty prompt', '/v1/completions', { prompt: '' }, 400, 'prompt'],
    ['a token id outside the vocabulary', '/v1/completions', { prompt: [1, 256] }, 400, 'prompt'],
    ['two prompts', '/v1/completions', { prompt: ['a', 'b'] }, 400, 'prompt'],
    ['n = 2', '/v1/completions', { prompt: 'a', n: 2 }, 400, 'n'],
    [
      'max_tokens beyond the context',
      '/v1/completions',
      { prompt: 'abc', max_tokens: 126 },
      400,
      'max_tokens',
    ],
    ['a prompt filling the context', '/v1/completions', { prompt: 'x'.repeat(128) }, 400, 'prompt'],
    [
      'min_tokens above max_tokens',
      '/v1/completions',
      { prompt: 'a', max_tokens: 2, min_tokens: 3 },
      400,
      'min_tokens',
    ],
    [
      'a bad role',
      '/v1/chat/completions',
      { messages: [{ role: 'bot', content: 'x' }] },
      400,
      'messages.0.role',
    ],
    [
      'max_completion_tokens beyond the context',
      '/v1/chat/completions',
      { messages: [{ role: 'user', content: 'x' }], max_completion_tokens: 500 },
      400,
      'max_completion_tokens',
    ],
    ['an unknown model', '/v1/completions', { model: 'gpt-4', prompt: 'a' }, 404, 'model'],
    ['/tokenize without text', '/tokenize', { model: 'tiny' }, 400, 'prompt'],
    ['/tokenize for another model', '/tokenize', { model: 'gpt-4', prompt: 'a' }, 404, 'model'],
    ['/detokenize of an id outside the vocabulary', '/detokenize', { tokens: [1, 256] }, 400, 'tokens'],
    ['an unknown path', '/v1/embeddings', { input: 'a' }, 404, null],
  ];
  it.each(cases)('answers %s with an OpenAI error body', async (_, path, body, status, param) => {
    const res = await post(path, body);
    expect(res.status).toBe(status);
    const error = ErrorBodySchema.parse(await res.json());
    expect(error.error.message.length).toBeGreaterThan(10);
    expect((error.error as { param?: unknown }).param).toBe(param);
    if (param !== null) expect(error.error.message).toContain(param.split('.')[0]);
  });

  it('answers a wrong method with 405 and Allow', async () => {
    const res = await fetch(`${url}/v1/completions`);
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
    ErrorBodySchema.parse(await res.json());
  });

  it('answers a body over the limit with 413', async () => {
    const small = new OpenAiServer({ model, name: 'tiny', maxBodyBytes: 64 });
    const smallUrl = await small.listen({ port: 0 });
    try {
      const res = await fetch(`${smallUrl}/v1/completions`, {
        method: 'POST',
        body: JSON.stringify({ prompt: 'x'.repeat(100) }),
      });
      expect(res.status).toBe(413);
      ErrorBodySchema.parse(await res.json());
    } finally {
      await small.shutdown(1000);
    }
  });
});
