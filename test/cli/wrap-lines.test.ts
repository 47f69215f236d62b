import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ExitCode, runCli } from '../../src/cli/index.js';
import { MAX_LINE, wrapLine, wrapLines, wrappingWriter } from '../../src/cli/wrap-lines.js';
import { captureIo } from './capture-io.js';

describe('wrapLine', () => {
  it('keeps a line of exactly the width, breaks one character more at the last space that fits', () => {
    expect(MAX_LINE).toBe(160);
    expect(wrapLine('aaaa bbbb', 9)).toEqual(['aaaa bbbb']);
    expect(wrapLine('aaaa bbbbb', 9)).toEqual(['aaaa', '  bbbbb']);
    expect(wrapLine('Config: a=1 b=2 c=3', 12)).toEqual(['Config: a=1', '  b=2 c=3']);
  });

  it('indents continuations two spaces under the line (under the text of a bullet), dropping spaces at a break', () => {
    expect(wrapLine('  - one two three', 10)).toEqual(['  - one', '    two', '    three']);
    expect(wrapLine('  task  cell  failed: long reason', 14)).toEqual([
      '  task  cell',
      '    failed:',
      '    long',
      '    reason',
    ]);
  });

  it('leaves a word longer than the width whole on its own line', () => {
    expect(wrapLine('Open: file:///a/very/long/path.html', 12)).toEqual([
      'Open:',
      '  file:///a/very/long/path.html',
    ]);
  });

  it('keeps every word in order, and every line within the width unless it is one word', () => {
    const word = fc.stringMatching(/^[a-z=,.]{1,12}$/);
    fc.assert(
      fc.property(
        fc.array(word, { minLength: 1, maxLength: 40 }),
        fc.integer({ min: 16, max: 60 }),
        (ws, width) => {
          const lines = wrapLine(ws.join(' '), width);
          expect(lines.join(' ').split(/ +/).filter(Boolean)).toEqual(ws);
          for (const l of lines) expect(l.length <= width || !l.trim().includes(' ')).toBe(true);
        },
      ),
    );
  });

  it('wrapLines and wrappingWriter wrap line by line, holding a line written in pieces until its newline', () => {
    expect(wrapLines('short\naaaa bbbbb\n', 9)).toBe('short\naaaa\n  bbbbb\n');
    const out: string[] = [];
    const writer = wrappingWriter({ write: (s: string) => out.push(s) }, 9);
    writer.write('aaaa ');
    expect(out).toEqual([]);
    writer.write('bbbbb\nrest');
    expect(out.join('')).toBe('aaaa\n  bbbbb\n');
    writer.flush();
    expect(out.join('')).toBe('aaaa\n  bbbbb\nrest');
  });
});

describe('dantinox bench stdout', () => {
  it(`with the default sweep (on tiny, uncalibrated), no line is longer than ${MAX_LINE} characters`, async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'dx-bench-width-'));
    const io = captureIo(cwd);
    const code = await runCli(
      ['bench', '--config', 'tiny', '--no-calibrate', '--no-charts', '--out', 'out'],
      io,
    );
    const stdout = io.out.join('');
    // tiny's 128-token context fails the sweep's 256- and 512-token cells (their reasons are long lines); the
    // tasks complete. The Config line of the default sweep is 280 characters unwrapped.
    expect(code, io.err.join('')).toBe(ExitCode.ok);
    expect(stdout).toContain('Config: seq_lens=');
    const long = stdout.split('\n').filter((l) => l.length > MAX_LINE);
    expect(long).toEqual([]);
    // Wrapping kept every word: the config line's fields are all there, once each.
    expect(stdout.match(/ seed=\d+/g)?.length).toBe(1);
  }, 300_000);
});
