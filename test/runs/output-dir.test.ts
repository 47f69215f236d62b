import { existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DantinoxError } from '../../src/errors.js';
import { messages } from '../../src/messages.js';
import {
  claimRunDir,
  claimTokenizerFolder,
  prepareOutputDir,
  timestampName,
} from '../../src/runs/output-dir.js';

describe('prepareOutputDir', () => {
  it('creates nested directories relative to cwd and leaves no probe file behind', () => {
    const cwd = mkdtempSync(join(tmpdir(), 'dantinox-out-'));
    const path = prepareOutputDir('results/a/b', cwd);
    expect(path).toBe(join(cwd, 'results/a/b'));
    expect(readdirSync(path)).toEqual([]);
  });

  it('fails with IO and the --out fix when the directory cannot be created', () => {
    const cwd = mkdtempSync(join(tmpdir(), 'dantinox-out-'));
    writeFileSync(join(cwd, 'file'), 'x');
    const attempt = (): string => prepareOutputDir('file/sub', cwd);
    expect(attempt).toThrow(DantinoxError);
    expect(attempt).toThrow(messages.outDirNotWritable('file/sub', { code: 'ENOTDIR' }));
  });
});

describe('timestampName', () => {
  it('is sortable and file-name safe', () => {
    expect(timestampName(new Date(2026, 0, 31, 4, 5, 9))).toBe('2026-01-31_04-05-09');
  });
});

describe('claimRunDir', () => {
  it('with force, removes a matrix run with the variant folders its matrix.json lists, and nothing else', () => {
    const cwd = mkdtempSync(join(tmpdir(), 'dantinox-out-'));
    const run = join(cwd, 'run');
    for (const d of ['tiny-t1', 'tiny-t2', 'run-1', 'mine']) mkdirSync(join(run, d), { recursive: true });
    writeFileSync(join(run, 'run-1', 'results.csv'), 'x');
    writeFileSync(join(run, 'results.csv'), 'x');
    // '..' and a path are not folder names of this run: they must never be removed.
    const ids = ['tiny-t1', 'tiny-t2', 'gone', '..', 'mine/..', ''];
    writeFileSync(join(run, 'matrix.json'), JSON.stringify({ variants: ids.map((id) => ({ id })) }));
    expect(() => claimRunDir('run', cwd, false)).toThrow(
      messages.outDirHoldsRun('run', ['results.csv', 'matrix.json', 'run-1/']),
    );
    expect(readdirSync(run).sort()).toEqual(
      ['matrix.json', 'mine', 'results.csv', 'run-1', 'tiny-t1', 'tiny-t2'].sort(),
    );
    claimRunDir('run', cwd, true);
    expect(readdirSync(run)).toEqual(['mine']);
    expect(existsSync(cwd)).toBe(true);
  });

  it('a traced run’s trace.json and operators.csv are its files: refused without force, removed with it', () => {
    const cwd = mkdtempSync(join(tmpdir(), 'dantinox-out-'));
    const run = join(cwd, 'run');
    mkdirSync(run);
    for (const f of ['trace.json', 'operators.csv', 'notes.txt']) writeFileSync(join(run, f), 'x');
    expect(() => claimRunDir('run', cwd, false)).toThrow(
      messages.outDirHoldsRun('run', ['trace.json', 'operators.csv']),
    );
    claimRunDir('run', cwd, true);
    expect(readdirSync(run)).toEqual(['notes.txt']);
  });

  it('with force and an unreadable matrix.json, removes the run files and keeps every folder', () => {
    const cwd = mkdtempSync(join(tmpdir(), 'dantinox-out-'));
    mkdirSync(join(cwd, 'tiny-t1'));
    writeFileSync(join(cwd, 'matrix.json'), '{"variants": [{"id": "tiny-t1"}');
    claimRunDir('.', cwd, true);
    expect(readdirSync(cwd)).toEqual(['tiny-t1']);
  });
});

describe('claimTokenizerFolder', () => {
  it('takes a new or tokenizer-free folder, and one holding a tokenizer only with force', () => {
    const cwd = mkdtempSync(join(tmpdir(), 'dantinox-out-'));
    expect(claimTokenizerFolder('tok', cwd, false)).toBe(join(cwd, 'tok'));
    expect(existsSync(join(cwd, 'tok'))).toBe(false); // claiming writes nothing
    mkdirSync(join(cwd, 'tok'));
    writeFileSync(join(cwd, 'tok', 'notes.txt'), 'other files do not count');
    expect(claimTokenizerFolder('tok', cwd, false)).toBe(join(cwd, 'tok'));
    writeFileSync(join(cwd, 'tok', 'tokenizer_config.json'), '{}');
    expect(() => claimTokenizerFolder('tok', cwd, false)).toThrow(
      messages.outFolderHoldsTokenizer('tok', ['tokenizer_config.json']),
    );
    expect(claimTokenizerFolder(join(cwd, 'tok'), '/elsewhere', true)).toBe(join(cwd, 'tok'));
  });

  it('refuses a file', () => {
    const cwd = mkdtempSync(join(tmpdir(), 'dantinox-out-'));
    writeFileSync(join(cwd, 'tok'), 'a file');
    expect(() => claimTokenizerFolder('tok', cwd, true)).toThrow(messages.outFolderIsFile('tok'));
  });
});
