import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DantinoxError } from '../../src/errors.js';
import { messages } from '../../src/messages.js';
import { prepareOutputDir, timestampName } from '../../src/runs/output-dir.js';

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
