/**
 * Creating a folder with its parents, with the error that says why it could not be made.
 *
 * @packageDocumentation
 */
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/**
 * Creates the folder `path` with its missing parents, as `mkdirSync(path, { recursive: true })` does, but fails
 * with the error of the folder that could not be made. Node's recursive `mkdir` reports `ENOENT` ("no such file or
 * directory") for a folder it could not create on a read-only file system; here the first missing folder is then
 * made on its own, so the error is the real one (`EROFS`, `EACCES`, `ENOTDIR`…) and a message built from its code
 * gives the right advice.
 *
 * @throws the file-system error of the first folder that could not be created.
 */
export function makeDirectory(path: string): void {
  try {
    mkdirSync(path, { recursive: true });
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'ENOENT') throw error;
    let missing = resolve(path);
    while (dirname(missing) !== missing && !existsSync(dirname(missing))) missing = dirname(missing);
    mkdirSync(missing); // throws the real error; if it succeeds (made meanwhile), make the rest
    mkdirSync(path, { recursive: true });
  }
}
