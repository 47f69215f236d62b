import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { excerpt, messages } from '../src/messages.js';
import { decodeText, readTextFile } from '../src/text-file.js';

const bytes = (...b: number[]): Uint8Array => Uint8Array.from(b);

describe('readTextFile', () => {
  it('reads UTF-8 (BOM dropped) and UTF-16 LE/BE with a byte-order mark', () => {
    expect(decodeText(new TextEncoder().encode('h€llo'), 'f', 'x')).toBe('h€llo');
    expect(decodeText(bytes(0xef, 0xbb, 0xbf, 0x61), 'f', 'x')).toBe('a');
    expect(decodeText(bytes(0xff, 0xfe, 0x68, 0x00, 0xac, 0x20), 'f', 'x')).toBe('h€');
    expect(decodeText(bytes(0xfe, 0xff, 0x00, 0x68, 0x20, 0xac), 'f', 'x')).toBe('h€');
  });

  it('refuses binary files and invalid UTF-8 with the offset of the first bad byte', () => {
    expect(() => decodeText(bytes(0x61, 0x62, 0x00, 0x01), 'f.bin', 'validation')).toThrow(
      messages.binaryTextFile('f.bin', 'validation', 2),
    );
    // Latin-1 "café": 0xe9 starts a 3-byte sequence that "!" does not continue.
    expect(() => decodeText(bytes(0x63, 0x61, 0x66, 0xe9, 0x21), 'f.txt', 'validation')).toThrow(
      messages.invalidUtf8('f.txt', 'validation', 3),
    );
    const dir = mkdtempSync(join(tmpdir(), 'dx-text-'));
    const path = join(dir, 'latin1.txt');
    writeFileSync(path, Buffer.from([0x41, 0xff, 0x42]));
    expect(() => readTextFile(path, 'validation')).toThrow(
      expect.objectContaining({
        code: 'INVALID_INPUT',
        message: messages.invalidUtf8(path, 'validation', 1),
      }),
    );
    expect(() => readTextFile(join(dir, 'missing.txt'), 'validation')).toThrow(
      expect.objectContaining({ code: 'IO' }),
    );
  });
});

describe('excerpt', () => {
  it('quotes at most a short escaped head of a value, with its full length', () => {
    expect(excerpt('abc')).toBe('"abc"');
    const huge = 'x'.repeat(50_000_000);
    const shown = excerpt(huge);
    expect(shown.length).toBeLessThan(120);
    expect(shown).toContain('50000000 characters in all');
    expect(excerpt('a\u0000\u0007\u009b')).toBe('"a\\u0000\\u0007\\u009b"');
  });
});
