import { beforeAll, describe, expect, it } from 'vitest';
import { messages } from '../../src/messages.js';
import { ModelConfig } from '../../src/models/model-config.js';
import { countFlops, countParameters, formatFlops, memoryFootprint } from '../../src/profiling/index.js';
import { ensureBuilt, runCli } from './built-cli.js';

beforeAll(() => ensureBuilt(), 180_000);

describe('dantinox flops', () => {
  it("prints the seed's breakdown plus parameters and bytes, matching the library", async () => {
    const run = await runCli(['flops', '--config', 'small', '--seq-len', '512', '--batch-size', '4']);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    const config = ModelConfig.preset('small');
    const flops = countFlops(config, { seqLen: 512, batchSize: 4 });
    expect(run.stdout).toContain(flops.toString());
    expect(run.stdout).toContain(`total     : ${formatFlops(flops.total)}`);
    expect(run.stdout).toMatch(/^Model: small \(preset\): dim 512, 8 heads, 12 blocks/);
    const params = countParameters(config).total;
    expect(run.stdout).toContain(`Parameters         : ${params.toLocaleString('en-US')}`);
    const kv = memoryFootprint(config).kvBytesPerToken;
    expect(run.stdout).toContain(`KV cache per token : ${kv.toLocaleString('en-US')}`);
  });

  it("--kv-bytes-per-element 2 counts an F16 cache (llama.cpp's default), and 0 is refused naming the flag", async () => {
    const run = await runCli(['flops', '--config', 'small', '--kv-bytes-per-element', '2', '--json']);
    expect(run.code).toBe(0);
    const json = JSON.parse(run.stdout) as { memory: { kvBytesPerToken: number; weightBytes: number } };
    const config = ModelConfig.preset('small');
    expect(json.memory.kvBytesPerToken).toBe(memoryFootprint(config).kvBytesPerToken / 2);
    expect(json.memory.weightBytes).toBe(memoryFootprint(config).weightBytes);
    const bad = await runCli(['flops', '--config', 'small', '--kv-bytes-per-element', '0']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(
      /^error: option '--kv-bytes-per-element <n>' argument '0' is invalid\. "0" is not a positive number/,
    );
  });

  it('--json prints one object with the same numbers, --formula seed switches formulas', async () => {
    const run = await runCli([
      'flops',
      '--config',
      'tiny',
      '--seq-len',
      '64',
      '--batch-size',
      '2',
      '--formula',
      'seed',
      '--json',
      '--dtype',
      'float16',
    ]);
    expect(run.code).toBe(0);
    const json = JSON.parse(run.stdout) as {
      flops: { total: number; attention: number };
      parameters: { total: number };
      memory: { weightBytes: number; kvBytesPerToken: number; dtype: string };
      formula: string;
      model: { name: string };
    };
    const config = ModelConfig.preset('tiny');
    const seed = countFlops(config, { seqLen: 64, batchSize: 2, formula: 'seed' });
    expect(json.flops.total).toBe(seed.total);
    expect(json.flops.attention).toBe(seed.attention);
    expect(json.formula).toBe('seed');
    expect(json.model.name).toBe('tiny');
    expect(json.parameters.total).toBe(countParameters(config).total);
    // The long spelling is accepted and reported by its dtype-table name.
    expect(json.memory).toMatchObject({ dtype: 'fp16', weightBytes: countParameters(config).total * 2 });
  });

  it("--logit-positions 1 counts a generation's prefill: the LM head over the last position only", async () => {
    const run = await runCli(['flops', '--config', 'tiny', '--seq-len', '64', '--batch-size', '1']);
    const prefill = await runCli([
      ...['flops', '--config', 'tiny', '--seq-len', '64', '--batch-size', '1', '--logit-positions', '1'],
    ]);
    expect(prefill.code).toBe(0);
    expect(prefill.stdout).toContain('tokens, logits of the last 1 per sequence, formula exact');
    expect(run.stdout).toContain('Counted: one forward pass of 1 × 64 tokens, formula exact');
    const json = await runCli([
      ...[
        'flops',
        '--config',
        'tiny',
        '--seq-len',
        '64',
        '--batch-size',
        '1',
        '--logit-positions',
        '1',
        '--json',
      ],
    ]);
    const out = JSON.parse(json.stdout) as {
      logitPositions: number;
      flops: { lmHead: number; total: number };
    };
    const config = ModelConfig.preset('tiny');
    const expected = countFlops(config, { seqLen: 64, logitPositions: 1 });
    expect(out.logitPositions).toBe(1);
    expect(out.flops.lmHead).toBe(2 * config.dim * config.vocabSize);
    expect(out.flops.total).toBe(expected.total);

    const tooMany = await runCli(['flops', '--config', 'tiny', '--seq-len', '8', '--logit-positions', '9']);
    expect(tooMany.code).toBe(2);
    expect(tooMany.stderr).toBe(`error: ${messages.logitPositionsAboveSeqLen(9, 8)}\n`);
  });

  it('reads a YAML model config with the seed snake_case keys', async () => {
    const { mkdtempSync, writeFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const dir = mkdtempSync(join(tmpdir(), 'dantinox-flops-'));
    writeFileSync(
      join(dir, 'model.yaml'),
      'model:\n  dim: 64\n  n_heads: 4\n  num_blocks: 2\n  vocab_size: 1000\n  max_context: 256\n',
    );
    const run = await runCli(['flops', '--config', 'model.yaml', '--seq-len', '128', '--json'], { cwd: dir });
    expect(run.code).toBe(0);
    const json = JSON.parse(run.stdout) as { flops: { total: number } };
    const config = ModelConfig.parse({ dim: 64, nHeads: 4, numBlocks: 2, vocabSize: 1000, maxContext: 256 });
    expect(json.flops.total).toBe(countFlops(config, { seqLen: 128, batchSize: 4 }).total);
  });

  it('newcomer errors: one line with the fix, exit 2, no stack trace', async () => {
    const presets = ModelConfig.presetNames();
    const typo = await runCli(['flops', '--config', 'smal']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toBe(`error: ${messages.unknownConfig('smal', presets)}\n`);
    expect(typo.stderr).toContain('Did you mean "small"?');

    const missing = await runCli(['flops', '--config', 'configs/none.yaml']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe(`error: ${messages.configFileMissing('configs/none.yaml', presets)}\n`);

    const badInt = await runCli(['flops', '--seq-len', 'abc']);
    expect(badInt.code).toBe(2);
    expect(badInt.stderr).toContain(messages.badCliValue('abc', 'a positive integer', '4'));
    expect(badInt.stderr).not.toMatch(/\n\s+at /);

    const tooLong = await runCli(['flops', '--config', 'tiny', '--seq-len', '4096']);
    expect(tooLong.code).toBe(2);
    expect(tooLong.stderr.split('\n').filter(Boolean)).toHaveLength(1);
    expect(tooLong.stderr).toContain('maxContext (128)');

    const unknownOption = await runCli(['flops', '--seqlen', '4']);
    expect(unknownOption.code).toBe(2);
    expect(unknownOption.stderr).toContain("unknown option '--seqlen'");
  });

  it('a bad YAML file names the file and the problem; --verbose adds the stack trace', async () => {
    const { mkdtempSync, writeFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const dir = mkdtempSync(join(tmpdir(), 'dantinox-flops-'));
    writeFileSync(join(dir, 'bad.yaml'), 'dim: [1, 2\nn_heads: 4\n');
    const run = await runCli(['flops', '--config', 'bad.yaml'], { cwd: dir });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^error: "bad.yaml" is not valid YAML: /);
    expect(run.stderr).not.toMatch(/\n\s+at /);
    const verbose = await runCli(['flops', '--config', 'bad.yaml', '--verbose'], { cwd: dir });
    expect(verbose.code).toBe(2);
    expect(verbose.stderr).toMatch(/\n\s+at /);
  });
});
