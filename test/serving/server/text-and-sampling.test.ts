/**
 * Known answers for the pieces under the server: the stop-text stream (characters split over byte tokens, stop
 * texts spanning tokens, the end-of-sequence token), the sampler (argmax, suppression, nucleus, seeded draws) and
 * the Prometheus text format.
 */
import { describe, expect, it } from 'vitest';
import { ByteTokenizer } from '../../../src/models/tokenizers/byte-tokenizer.js';
import { Rng } from '../../../src/rng.js';
import { PrometheusRegistry } from '../../../src/serving/server/prometheus-metrics.js';
import { argmax, sampleToken } from '../../../src/serving/server/sampler.js';
import { StopTextStream } from '../../../src/serving/server/stop-text-stream.js';

const bytes = (text: string): number[] => [...new TextEncoder().encode(text)];

describe('StopTextStream', () => {
  it('releases a character split over byte tokens only once it is complete', () => {
    const stream = new StopTextStream(new ByteTokenizer(), []);
    expect(bytes('aé')).toEqual([97, 195, 169]);
    expect([97, 195, 169].map((id) => stream.push(id))).toEqual(['a', '', 'é']);
    expect(stream.flush()).toBe('');
    expect(stream.text).toBe('aé');
  });

  it('stops before a stop text that spans tokens and releases nothing of it', () => {
    const stream = new StopTextStream(new ByteTokenizer(), ['END', 'xyz'], 0);
    const pieces = bytes('abcENDdef').map((id) => stream.push(id));
    expect(pieces.join('')).toBe('abc');
    expect(stream.stopped).toBe(true);
    expect(stream.flush()).toBe('');
    expect(stream.text).toBe('abc');
  });

  it('holds back the last (longest stop − 1) characters until more come, and adds no text for the end token', () => {
    const stream = new StopTextStream(new ByteTokenizer(), ['ab'], 0);
    expect(stream.push(97)).toBe('');
    expect(stream.push(99)).toBe('a');
    expect(stream.push(0)).toBe('');
    expect(stream.push(97)).toBe('c');
    expect(stream.flush()).toBe('a');
    expect(stream.text).toBe('aca');
  });
});

describe('sampleToken', () => {
  const logits = Float32Array.of(0, 5, 1, 5, -2);

  it('is the first argmax at temperature 0, skipping a suppressed id', () => {
    const rng = new Rng(0);
    expect(argmax(logits, 0, 5)).toBe(1);
    expect(sampleToken(logits, 0, 5, { temperature: 0, topP: 1, rng })).toBe(1);
    expect(sampleToken(logits, 0, 5, { temperature: 0, topP: 1, rng, suppress: 1 })).toBe(3);
    expect(argmax(Float32Array.of(9, 9, 1, 2), 2, 2)).toBe(1);
  });

  it('draws in proportion to softmax(logits / T), the same for the same seed, never a suppressed id', () => {
    const counts = [0, 0, 0, 0, 0];
    const rng = new Rng(42);
    for (let i = 0; i < 4000; i++) {
      const id = sampleToken(logits, 0, 5, { temperature: 1, topP: 1, rng, suppress: 3 });
      counts[id] = (counts[id] as number) + 1;
    }
    const p1 = Math.exp(5) / (Math.exp(0) + Math.exp(5) + Math.exp(1) + Math.exp(-2));
    expect(counts[3]).toBe(0);
    expect(Math.abs((counts[1] as number) / 4000 - p1)).toBeLessThan(0.03); // 4 binomial sd at n = 4000
    const draw = (seed: number) => sampleToken(logits, 0, 5, { temperature: 2, topP: 1, rng: new Rng(seed) });
    expect([1, 2, 3, 4, 5].map(draw)).toEqual([1, 2, 3, 4, 5].map(draw));
  });

  it('keeps only the nucleus: top_p just above the top token’s mass leaves the two tied leaders', () => {
    const rng = new Rng(1);
    const seen = new Set<number>();
    for (let i = 0; i < 200; i++) seen.add(sampleToken(logits, 0, 5, { temperature: 1, topP: 0.5, rng }));
    expect([...seen].sort()).toEqual([1, 3]);
  });
});

describe('PrometheusRegistry', () => {
  it('writes counters, gauges and cumulative histograms in the text format', () => {
    const registry = new PrometheusRegistry();
    const requests = registry.counter('x_requests_total', 'Requests.');
    registry.gauge('x_waiting', 'Waiting.', () => 3);
    const h = registry.histogram('x_seconds', 'Time, in seconds.', [0.1, 1]);
    requests.inc({ code: '200' });
    requests.inc({ code: '200' }, 2);
    requests.inc({ code: 'a"b\\' });
    for (const v of [0.05, 0.1, 0.5, 7]) h.observe(v);
    expect(registry.render()).toBe(
      [
        '# HELP x_requests_total Requests.',
        '# TYPE x_requests_total counter',
        'x_requests_total{code="200"} 3',
        'x_requests_total{code="a\\"b\\\\"} 1',
        '# HELP x_waiting Waiting.',
        '# TYPE x_waiting gauge',
        'x_waiting 3',
        '# HELP x_seconds Time, in seconds.',
        '# TYPE x_seconds histogram',
        'x_seconds_bucket{le="0.1"} 2',
        'x_seconds_bucket{le="1"} 3',
        'x_seconds_bucket{le="+Inf"} 4',
        'x_seconds_sum 7.65',
        'x_seconds_count 4',
        '',
      ].join('\n'),
    );
  });
});
