/**
 * Reading a user's text file (configs, validation text, results): UTF-8 with or without a byte-order mark, or
 * UTF-16 with one; a binary file or invalid UTF-8 is refused with the byte offset, never decoded into garbage.
 *
 * @packageDocumentation
 */
import { readFileSync, rmSync } from 'node:fs';
import { DantinoxError } from './errors.js';
import { messages } from './messages.js';

/**
 * The text of `bytes`: UTF-16 LE/BE when they start with its byte-order mark, else strict UTF-8 (a UTF-8 BOM is
 * dropped).
 *
 * @throws {@link dantinox!DantinoxError} `INVALID_INPUT` when the bytes hold a NUL byte (a binary file) or are not valid
 * UTF-8; the message names `path`, `what` the file is for and the offset of the first bad byte.
 */
export function decodeText(bytes: Uint8Array, path: string, what: string): string {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder('utf-16le').decode(bytes.subarray(2));
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder('utf-16be').decode(bytes.subarray(2));
  const nul = bytes.indexOf(0);
  if (nul >= 0) throw new DantinoxError('INVALID_INPUT', messages.binaryTextFile(path, what, nul));
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw new DantinoxError('INVALID_INPUT', messages.invalidUtf8(path, what, firstInvalidUtf8(bytes)));
  }
}

/**
 * Reads `path` as text with {@link decodeText}.
 *
 * @throws {@link dantinox!DantinoxError} `IO` when the file cannot be read, `INVALID_INPUT` when it is not text.
 */
export function readTextFile(path: string, what: string): string {
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(path);
  } catch (cause) {
    throw new DantinoxError('IO', messages.cannotRead(path, what, cause), { cause });
  }
  return decodeText(bytes, path, what);
}

/** Byte offset of the first byte that does not start or continue a valid UTF-8 sequence. */
function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i] as number;
    const n =
      b < 0x80 ? 0 : b >= 0xc2 && b < 0xe0 ? 1 : b >= 0xe0 && b < 0xf0 ? 2 : b >= 0xf0 && b < 0xf5 ? 3 : -1;
    if (n < 0) return i;
    for (let k = 1; k <= n; k++) if (((bytes[i + k] ?? 0) & 0xc0) !== 0x80) return i;
    i += n + 1;
  }
  return i;
}

/**
 * Removes the file a failed write left at `path` (empty or cut short, e.g. by a full disk), so that it is never read
 * back as a result; a failure to remove it is ignored (the write's own error is the one to report).
 */
export function removePartial(path: string): void {
  try {
    rmSync(path, { force: true });
  } catch {
    // The write already failed: its error says what to do.
  }
}
