import { describe, expect, it } from 'vitest';
import { readExchange } from '../../../src/serving/client/read-exchange.js';
import { completeExchange } from './http-reads.js';

/** A complete exchange whose body arrived as `chunks`, one per millisecond from 10. */
const raw = (...chunks: string[]) => completeExchange(chunks);

const timings = {
  cache_n: 0,
  prompt_n: 16,
  prompt_ms: 4.5,
  predicted_n: 3,
  predicted_ms: 6,
  predicted_per_token_ms: 2,
};

describe('readExchange: the server timings llama-server sends', () => {
  it('keeps the timings of the last streamed chunk that carries them', () => {
    const reading = readExchange(
      raw(
        'data: {"choices":[{"text":" a"}]}\n\n',
        `data: {"choices":[{"text":" b","finish_reason":"length"}],"timings":${JSON.stringify(timings)}}\n\n`,
        'data: [DONE]\n\n',
      ),
      'completions',
      true,
    );
    expect(reading).toMatchObject({ status: 'ok', timings });
    expect(reading.status === 'ok' && reading.pieces.map((p) => p.text)).toEqual([' a', ' b']);
  });

  it('reads them from a whole chat response, and leaves them out when a server sends none', () => {
    const body = (extra: object) =>
      JSON.stringify({
        id: 'x',
        object: 'chat.completion',
        created: 0,
        model: 'm',
        choices: [{ index: 0, message: { role: 'assistant', content: 'hi' } }],
        ...extra,
      });
    expect(readExchange(raw(body({ timings })), 'chat', false)).toMatchObject({ status: 'ok', timings });
    expect(readExchange(raw(body({})), 'chat', false)).not.toHaveProperty('timings');
  });

  it('refuses timings that are not numbers, as a response that is not the API', () => {
    const reading = readExchange(
      raw('data: {"choices":[],"timings":{"prompt_ms":"fast"}}\n\n', 'data: [DONE]\n\n'),
      'completions',
      true,
    );
    expect(reading).toMatchObject({ status: 'failed', kind: 'invalid-response' });
  });
});
