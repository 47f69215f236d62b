import { describe, expect, it } from 'vitest';
import { main as countFlopsMain } from '../examples/count-flops.js';
import { main as trackLatencyMain } from '../examples/track-latency.js';
import { ModelConfig } from '../src/models/model-config.js';
import { countFlops } from '../src/profiling/index.js';

/** Runs an example's main with a capturing logger and returns what it printed. */
async function capture(main: (log: (line: string) => void) => unknown): Promise<string> {
  const lines: string[] = [];
  await main((line) => lines.push(line));
  return lines.join('\n');
}

describe('examples run and print what they promise', () => {
  it('count-flops.ts', async () => {
    const out = await capture(countFlopsMain);
    expect(out).toContain(String(countFlops(ModelConfig.preset('small'), { seqLen: 512, batchSize: 4 })));
    expect(out).toMatch(/one decode step at context 511: [\d.]+ MFLOPs/);
  });

  it('track-latency.ts', async () => {
    const out = await capture(trackLatencyMain);
    expect(out).toMatch(/over 40 samples/);
    expect(out).toMatch(/throughput \d+ tokens\/s/);
  });
});
