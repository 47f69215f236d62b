import { describe, expect, it } from 'vitest';
import { type CliIo, ExitCode, runCli } from '../../src/cli/index.js';
import { messages } from '../../src/messages.js';
import { ModelConfig } from '../../src/models/model-config.js';
import { countFlops } from '../../src/profiling/index.js';

/** An injected console that records what the CLI writes. */
function captureIo(): CliIo & { out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return {
    out,
    err,
    stdout: { write: (s: string) => out.push(s) },
    stderr: { write: (s: string) => err.push(s) },
    cwd: process.cwd(),
    now: () => new Date(2026, 0, 31, 4, 5, 9),
  };
}

describe('runCli (in process, injected console)', () => {
  it('writes through the injected writers and resolves to the exit code; never exits the process', async () => {
    const io = captureIo();
    expect(await runCli(['flops', '--config', 'tiny', '--seq-len', '32', '--json'], io)).toBe(ExitCode.ok);
    const json = JSON.parse(io.out.join('')) as { flops: { total: number } };
    expect(json.flops.total).toBe(countFlops(ModelConfig.preset('tiny'), { seqLen: 32, batchSize: 4 }).total);
    expect(io.err).toEqual([]);
  });

  it('maps usage errors to 2 with one line on stderr', async () => {
    const io = captureIo();
    expect(await runCli(['flops', '--config', 'smal'], io)).toBe(ExitCode.usage);
    expect(io.err.join('')).toBe(`error: ${messages.unknownConfig('smal', ModelConfig.presetNames())}\n`);
    const unknown = captureIo();
    expect(await runCli(['flops', '--nope'], unknown)).toBe(ExitCode.usage);
    expect(unknown.err.join('')).toContain("error: unknown option '--nope'");
  });
});
