/**
 * A model's weight files on disk: their size (the `weight_bytes` column: what an engine actually loaded) and their
 * hash (the `weights` identity of a loaded model, so two folders with other weights are two variants).
 *
 * @packageDocumentation
 */
import { createHash } from 'node:crypto';
import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';

/**
 * Bytes of an ONNX file plus its external data file (`<file>_data`, as dantinox and the Hugging Face exporters
 * name it), or of any single weight file (a GGUF file).
 */
export function weightFileBytes(path: string): number {
  const data = `${path}_data`;
  return statSync(path).size + (existsSync(data) ? statSync(data).size : 0);
}

/** `sha256:<16 hex digits>` of an ONNX file and its external data file, read in 8 MiB chunks. */
export function weightFileHash(path: string): string {
  return `sha256:${filesSha256([path, `${path}_data`].filter((f) => existsSync(f))).slice(0, 16)}`;
}

/** SHA-256 (hex) of the concatenated contents of the files at `paths`, read in 8 MiB chunks. */
export function filesSha256(paths: readonly string[]): string {
  const hash = createHash('sha256');
  const chunk = Buffer.allocUnsafe(8 * 2 ** 20);
  for (const file of paths) {
    const fd = openSync(file, 'r');
    try {
      for (let n = readSync(fd, chunk); n > 0; n = readSync(fd, chunk)) hash.update(chunk.subarray(0, n));
    } finally {
      closeSync(fd);
    }
  }
  return hash.digest('hex');
}
