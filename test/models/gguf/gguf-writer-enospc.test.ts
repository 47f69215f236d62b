/**
 * A GGUF file that could not be written whole is removed: on a full disk the export fails with one line, and
 * leaves no empty or cut file that would pass for a model or make the next export refuse the path as taken.
 * The full disk is `/dev/full` behind a symlink, where every write fails with ENOSPC.
 */
import { existsSync, lstatSync, mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { messages } from '../../../src/messages.js';
import { type GgufValue, writeGguf } from '../../../src/models/gguf/gguf-writer.js';
import { thrown } from '../../thrown.js';

it.skipIf(!existsSync('/dev/full'))('a write that fails with ENOSPC leaves nothing at the path', () => {
  const path = join(mkdtempSync(join(tmpdir(), 'dantinox-gguf-full-')), 'model.gguf');
  symlinkSync('/dev/full', path);
  const tensor = { name: 'w', type: 'F32' as const, ne: [4], data: new Uint8Array(16) };
  const metadata = new Map<string, GgufValue>([['general.name', { type: 'string', value: 'x' }]]);
  const error = thrown(() => writeGguf(path, metadata, [tensor]));
  expect(error.code).toBe('IO');
  expect(error.message).toBe(messages.cannotWrite(path, error.cause));
  expect(error.message).toContain('no space left');
  expect(() => lstatSync(path)).toThrow(/ENOENT/);
});
