import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { main as countFlopsMain } from '../examples/count-flops.js';
import { main as customChartMain } from '../examples/custom-chart.js';
import { main as customTaskMain } from '../examples/custom-task.js';
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

  it('custom-task.ts', async () => {
    const out = await capture(customTaskMain);
    expect(out).toContain('Summary: 2 task(s)');
    expect(out).toMatch(/^ {2}generation_speed +gen_tps +[\d,.]+ tok\/s$/m);
  });

  it('custom-chart.ts', async () => {
    const written: string[] = [];
    const out = await capture(async (log) => written.push(...(await customChartMain(log))));
    expect(out).toMatch(/^tokens_per_param: .*example-tokens_per_param\.svg$/m);
    expect(written).toHaveLength(2);
    expect(readFileSync(written[0] as string, 'utf8')).toContain('tokens/s per M params');
  });
});
