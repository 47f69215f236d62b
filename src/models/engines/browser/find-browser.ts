/**
 * Which Chromium the browser target drives: the `--browser-path` given, else the first of the usual Chromium and
 * Chrome executables found on `PATH`, else `/usr/bin/chromium`.
 *
 * @packageDocumentation
 */
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { DantinoxError } from '../../../errors.js';
import { messages } from '../../../messages.js';

/** Executable names looked up on `PATH`, in order. */
export const BROWSER_NAMES = [
  'chromium',
  'chromium-browser',
  'google-chrome',
  'google-chrome-stable',
  'chrome',
] as const;

/** Whether `path` is an executable file. */
function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** Where Chromium is looked for when `PATH` has none. */
export const BROWSER_FALLBACKS: readonly string[] = ['/usr/bin/chromium'];

/**
 * The Chromium executable to launch: `explicit` when given (it must be an executable file), else the first of
 * {@link BROWSER_NAMES} on `pathVariable`, else the first of `fallbacks` that exists.
 *
 * @throws {@link dantinox!DantinoxError} `DEPENDENCY_MISSING` naming `--browser-path` when none is found.
 */
export function findBrowser(
  explicit?: string,
  pathVariable: string = process.env['PATH'] ?? '',
  fallbacks: readonly string[] = BROWSER_FALLBACKS,
): string {
  if (explicit !== undefined) {
    if (isExecutable(explicit)) return explicit;
    throw new DantinoxError('DEPENDENCY_MISSING', messages.browserPathNotExecutable(explicit));
  }
  const folders = pathVariable.split(delimiter).filter((f) => f !== '');
  for (const name of BROWSER_NAMES)
    for (const folder of folders) if (isExecutable(join(folder, name))) return join(folder, name);
  for (const path of fallbacks) if (isExecutable(path)) return path;
  throw new DantinoxError('DEPENDENCY_MISSING', messages.browserNotFound(BROWSER_NAMES, fallbacks));
}
