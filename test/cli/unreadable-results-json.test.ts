/**
 * A run folder whose `results.json` is empty (0 bytes) or torn (cut short mid-JSON) next to its `results.jsonl`:
 * `report`, `compare`, `history add` and (for a matrix variant) `merge --allow-partial` read the run from the
 * stream and say so in one line on stderr naming both files; a folder where the stream cannot be read either keeps the error of `results.json`, exit 2. In process,
 * on a real run of `tiny`.
 */
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ExitCode, runCli } from '../../src/cli/index.js';
import { messages } from '../../src/messages.js';
import { captureIo } from './capture-io.js';
import { TINY_SWEEP } from './tiny-sweep.js';

const TINY = [
  'bench',
  '--config',
  'tiny',
  '--tasks',
  'throughput',
  ...TINY_SWEEP,
  '--no-calibrate',
  '--no-charts',
  '-q',
];

let cwd: string;
let runId: string;

/** A copy of the run in `name/` whose results.json is `json` (and whose stream is `jsonl`, when given). */
function copy(name: string, json: (text: string) => string, jsonl?: string): void {
  cpSync(join(cwd, 'run'), join(cwd, name), { recursive: true });
  writeFileSync(
    join(cwd, name, 'results.json'),
    json(readFileSync(join(cwd, 'run', 'results.json'), 'utf8')),
  );
  if (jsonl !== undefined) writeFileSync(join(cwd, name, 'results.jsonl'), jsonl);
}

/** The stderr line of a folder read from its stream. */
const note = (name: string): string =>
  `note: ${messages.resultsJsonUnreadable(join(cwd, name, 'results.json'), join(cwd, name, 'results.jsonl'))}\n`;

/** The stderr lines that are notes. */
const notes = (err: readonly string[]): string[] =>
  err
    .join('')
    .split(/(?<=\n)/)
    .filter((l) => l.startsWith('note: '));

beforeAll(async () => {
  cwd = mkdtempSync(join(tmpdir(), 'dx-unreadable-'));
  const io = captureIo(cwd);
  expect(await runCli([...TINY, '--out', 'run'], io), io.err.join('')).toBe(ExitCode.ok);
  runId = String(JSON.parse(readFileSync(join(cwd, 'run', 'results.json'), 'utf8')).runId);
  copy('empty', () => '');
  copy('torn', (text) => text.slice(0, Math.floor(text.length / 2)));
  // Both unreadable: an empty results.json and a stream without its run line.
  copy('both', () => '', '{"type":"cell"\n');
  const matrix = captureIo(cwd);
  expect(await runCli([...TINY, '--dtype', 'fp32,q8', '--out', 'matrix'], matrix), matrix.err.join('')).toBe(
    ExitCode.ok,
  );
  writeFileSync(join(cwd, 'matrix', 'tiny-q8', 'results.json'), '');
}, 120_000);

describe('a run folder whose results.json is unreadable', () => {
  it.each(['empty', 'torn'])(
    'report on the %s one reads the stream and says so in one line',
    async (name) => {
      const io = captureIo(cwd);
      expect(await runCli(['report', name, '--out', `${name}-report`], io), io.err.join('')).toBe(
        ExitCode.ok,
      );
      expect(notes(io.err)).toEqual([note(name)]);
      expect(readFileSync(join(cwd, `${name}-report`, 'report.html'), 'utf8')).toContain(runId);
    },
  );

  it('compare reads both folders from their streams, one line each', async () => {
    const io = captureIo(cwd);
    expect(await runCli(['compare', 'empty', 'torn'], io), io.err.join('')).toBe(ExitCode.ok);
    expect(notes(io.err)).toEqual([note('empty'), note('torn')]);
    expect(io.out.join('')).toContain('throughput');
  });

  it('history add stores the run read from the stream, saying so', async () => {
    const io = captureIo(cwd);
    expect(await runCli(['history', 'add', 'torn', '--history', 'h.duckdb'], io), io.err.join('')).toBe(
      ExitCode.ok,
    );
    expect(notes(io.err)).toEqual([note('torn')]);
    expect(io.out.join('')).toBe(`added: ${runId} (${join(cwd, 'torn', 'results.jsonl')})\n`);
  });

  it('in a matrix folder, the variant read from its stream is named: report, compare and history add', async () => {
    const line = note(join('matrix', 'tiny-q8'));
    for (const args of [
      ['report', 'matrix', '--out', 'matrix-report'],
      ['compare', 'matrix', 'matrix'],
      ['history', 'add', 'matrix', '--history', 'm.duckdb'],
    ]) {
      const io = captureIo(cwd);
      expect(await runCli(args, io), io.err.join('')).toBe(ExitCode.ok);
      expect(notes(io.err), args[0]).toEqual(args[0] === 'compare' ? [line, line] : [line]);
    }
    expect(readFileSync(join(cwd, 'matrix-report', 'report.html'), 'utf8')).toContain('tiny-q8');
  });

  it('merge --allow-partial reads that variant from its stream, saying so, and merges every row', async () => {
    const io = captureIo(cwd);
    expect(
      await runCli(['merge', 'matrix', '--allow-partial', '--no-charts', '--out', 'merged'], io),
      io.err.join(''),
    ).toBe(ExitCode.ok);
    expect(notes(io.err)).toEqual([note(join('merged', 'tiny-q8'))]);
    const merged = JSON.parse(readFileSync(join(cwd, 'merged', 'results.json'), 'utf8'));
    expect(merged.variants.map((v: { id: string }) => v.id)).toEqual(['tiny-fp32', 'tiny-q8']);
  });

  it.each([
    ['report', 'both', '--out', 'both-report'],
    ['compare', 'both', 'run'],
    ['history', 'add', 'both', '--history', 'h2.duckdb'],
  ])('when the stream is unreadable too, %s keeps the error of results.json, exit 2', async (...args) => {
    const io = captureIo(cwd);
    expect(await runCli(args, io)).toBe(ExitCode.usage);
    expect(io.err.join('')).toBe(`error: ${messages.emptyDataFile(join(cwd, 'both', 'results.json'))}\n`);
  });
});
