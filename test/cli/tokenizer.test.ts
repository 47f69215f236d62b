/**
 * `dantinox tokenizer train`: writes the tokenizer `trainBpe` learns (loaded back, it encodes as the library's),
 * refuses to replace one without --force, and refuses bad flags in one line naming the flag.
 */
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { messages } from '../../src/messages.js';
import { loadHfTokenizer } from '../../src/models/hf/hf-tokenizer.js';
import { trainBpe } from '../../src/models/tokenizers/train-bpe.js';
import type { CliRun } from './built-cli.js';
import { runCliInProcess } from './capture-io.js';

const TEXT = 'the cat sat on the mat; the cat ate the rat, and then the cat sat again. '.repeat(40);

/** Runs the CLI in `cwd`; resolves to its exit code and output. */
const run = (argv: string[], cwd: string): Promise<CliRun> => runCliInProcess(argv, cwd);

function workspace(): string {
  const cwd = mkdtempSync(join(tmpdir(), 'dx-tokenizer-'));
  writeFileSync(join(cwd, 'corpus.txt'), TEXT);
  writeFileSync(join(cwd, 'empty.txt'), '');
  writeFileSync(join(cwd, 'a-file'), 'not a folder');
  return cwd;
}

describe('dantinox tokenizer train', () => {
  it('writes tokenizer.json + tokenizer_config.json that encode as trainBpe does, and says what it wrote', async () => {
    const cwd = workspace();
    const r = await run(
      ['tokenizer', 'train', '--vocab-size', '270', '--data', 'corpus.txt', '--out', 'tok'],
      cwd,
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const tok = trainBpe(TEXT, { vocabSize: 270 });
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(
      `Wrote tok/tokenizer.json and tok/tokenizer_config.json: byte-level BPE ${tok.name}, 270 ids (256 bytes, 13 merges, <|endoftext|> = 269)`,
    );
    const tokens = tok.encode(TEXT).length;
    // The injected clock stands still: 0.0 s.
    expect(lines[1]).toBe(
      `Trained in 0.0 s on corpus.txt: ${TEXT.length.toLocaleString('en-US')} bytes → ${tokens.toLocaleString('en-US')} tokens (${(tokens / TEXT.length).toFixed(4)} tokens per byte)`,
    );
    expect(lines).toHaveLength(2);
    expect(loadHfTokenizer(join(cwd, 'tok')).encode(TEXT)).toEqual(tok.encode(TEXT));
  });

  it('says when it stopped below --vocab-size (no pair left that often)', async () => {
    const cwd = workspace();
    const r = await run(
      ['tokenizer', 'train', '--vocab-size', '5000', '--data', 'corpus.txt', '--out', 'tok'],
      cwd,
    );
    expect(r.code).toBe(0);
    const ids = trainBpe(TEXT, { vocabSize: 5000 }).vocabSize;
    expect(r.stdout).toContain(
      `Stopped at ${ids} of --vocab-size 5000 ids: no pair occurs --min-pair-count 2 times any more.`,
    );
  });

  it('refuses to replace a tokenizer without --force, and replaces it with --force', async () => {
    const cwd = workspace();
    const argv = ['tokenizer', 'train', '--vocab-size', '260', '--data', 'corpus.txt', '--out', 'tok'];
    expect((await run(argv, cwd)).code).toBe(0);
    const again = await run(argv, cwd);
    expect(again.code).toBe(2);
    expect(again.stderr).toBe(
      `error: ${messages.outFolderHoldsTokenizer('tok', ['tokenizer.json', 'tokenizer_config.json'])}\n`,
    );
    expect((await run([...argv, '--force'], cwd)).code).toBe(0);
  });

  it('refuses bad flags in one line naming the flag, before writing anything', async () => {
    const cwd = workspace();
    const small = await run(['tokenizer', 'train', '--vocab-size', '256', '--out', 'tok'], cwd);
    expect(small.code).toBe(2);
    expect(small.stderr.split('\n')[0]).toBe(
      `error: option '--vocab-size <n>' argument '256' is invalid. ${messages.badCliValue('256', 'an integer from 257 to 1048576', '4096')}`,
    );
    const empty = await run(['tokenizer', 'train', '--data', 'empty.txt', '--out', 'tok'], cwd);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toBe(`error: ${messages.bpeEmptyText('--data empty.txt')}\n`);
    const onFile = await run(['tokenizer', 'train', '--data', 'corpus.txt', '--out', 'a-file'], cwd);
    expect(onFile.code).toBe(2);
    expect(onFile.stderr).toBe(`error: ${messages.outFolderIsFile('a-file')}\n`);
    const pairs = await run(['tokenizer', 'train', '--min-pair-count', '0', '--out', 'tok'], cwd);
    expect(pairs.code).toBe(2);
    expect(pairs.stderr).toContain("option '--min-pair-count <n>' argument '0' is invalid.");
    expect(existsSync(join(cwd, 'tok'))).toBe(false);
  });
});
