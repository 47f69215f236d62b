/**
 * `plot` and `report` on results files that hold nothing readable (empty, random bytes, a header without rows):
 * one clear line and exit 2, nothing written. In process, with an injected console.
 */
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ExitCode, runCli } from '../../src/cli/index.js';
import { messages } from '../../src/messages.js';
import { Rng } from '../../src/rng.js';
import { captureIo } from './capture-io.js';

/** 3,000 seeded random bytes (they hold NUL bytes and invalid UTF-8). */
function randomBytes(seed: number): Buffer {
  const rng = new Rng(seed);
  return Buffer.from(Array.from({ length: 3000 }, () => rng.int(256)));
}

const FILES = ['results.csv', 'results.json', 'results.jsonl'] as const;
const COMMANDS = ['plot', 'report'] as const;

describe.each(COMMANDS)('dantinox %s on a bad results file', (command) => {
  it.each(FILES)('an empty %s: the file is empty, exit 2', async (file) => {
    const cwd = mkdtempSync(join(tmpdir(), 'dx-bad-'));
    writeFileSync(join(cwd, file), '');
    const io = captureIo(cwd);
    expect(await runCli([command, file], io)).toBe(ExitCode.usage);
    expect(io.err.join('')).toBe(`error: ${messages.emptyDataFile(join(cwd, file))}\n`);
    expect(readdirSync(cwd)).toEqual([file]);
  });

  it.each(FILES)('random bytes named %s: a binary file, exit 2', async (file) => {
    const cwd = mkdtempSync(join(tmpdir(), 'dx-bad-'));
    const bytes = randomBytes(file.length);
    writeFileSync(join(cwd, file), bytes);
    const io = captureIo(cwd);
    expect(await runCli([command, file], io)).toBe(ExitCode.usage);
    expect(io.err.join('')).toBe(
      `error: ${messages.binaryTextFile(join(cwd, file), 'report', bytes.indexOf(0))}\n`,
    );
    expect(readdirSync(cwd)).toEqual([file]);
  });

  it.each([
    ['rows.json', '[{"task": "throughput", "peak_tps": 12}, 3]', 'row 2', 3],
    ['rows.jsonl', '{"task": "throughput"}\n\nnull\n', 'line 3', null],
  ])(
    'a table file %s with a row that is not an object: file and row named, exit 2',
    async (file, text, where, row) => {
      const cwd = mkdtempSync(join(tmpdir(), 'dx-bad-'));
      writeFileSync(join(cwd, file), text);
      const io = captureIo(cwd);
      expect(await runCli([command, file], io)).toBe(ExitCode.usage);
      expect(io.err.join('')).toBe(`error: ${messages.badChartFileRow(join(cwd, file), where, row)}\n`);
    },
  );

  it('a CSV header without rows: no results, exit 2', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'dx-bad-'));
    writeFileSync(join(cwd, 'results.csv'), 'task,status,duration_ms,model\n');
    const io = captureIo(cwd);
    expect(await runCli([command, 'results.csv'], io)).toBe(ExitCode.usage);
    expect(io.err.join('')).toBe(`error: ${messages.reportHasNoResults(join(cwd, 'results.csv'))}\n`);
  });
});
