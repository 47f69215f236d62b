/**
 * `readCaFile`: the PEM certificate(s) of `--ca-file`, the private CA (or self-signed certificate) an `https`
 * server's certificate is checked against.
 *
 * @packageDocumentation
 */
import { readFileSync } from 'node:fs';
import { DantinoxError } from '../../errors.js';
import { messages } from '../../messages.js';
import type { OpenAiClientOptions } from './openai-client.js';

/**
 * Reads a PEM file of one or more certificates (`-----BEGIN CERTIFICATE-----` blocks) for
 * {@link OpenAiClientOptions.ca}.
 *
 * @throws {@link dantinox!DantinoxError} `INVALID_OPTION` naming `--ca-file` when the file cannot be read or holds no
 * PEM certificate (e.g. a DER file, or a private key).
 */
export function readCaFile(path: string): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (cause) {
    throw new DantinoxError('INVALID_OPTION', messages.loadCaFileUnreadable(path, cause), { cause });
  }
  if (!text.includes('-----BEGIN CERTIFICATE-----'))
    throw new DantinoxError('INVALID_OPTION', messages.loadCaFileNotPem(path));
  return text;
}
