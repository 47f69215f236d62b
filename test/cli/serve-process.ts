/**
 * `dantinox serve --config tiny` as a child process of the built CLI, for the tests that need a real server of our
 * own on loopback.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { BIN } from './built-cli.js';

/** A running `dantinox serve`. */
export interface Served {
  readonly child: ChildProcess;
  readonly url: string;
  readonly stderr: () => string;
  readonly stdout: () => string;
  readonly exit: Promise<number | null>;
}

/** Starts `dantinox serve --config tiny --port 0` and resolves once it printed its URL (within 60 s). */
export function serve(extra: readonly string[] = []): Promise<Served> {
  const child = spawn(
    process.execPath,
    [BIN, 'serve', '--config', 'tiny', '--threads', '1', '--port', '0', ...extra],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  let err = '';
  const exit = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  child.stderr?.setEncoding('utf8').on('data', (s: string) => {
    err += s;
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no URL within 60 s; stderr: ${err}`));
    }, 60_000);
    child.stdout?.setEncoding('utf8').on('data', (s: string) => {
      out += s;
      const url = /listening on (http:\/\/\S+)/.exec(out)?.[1];
      if (url !== undefined) {
        clearTimeout(timer);
        resolve({ child, url, stderr: () => err, stdout: () => out, exit });
      }
    });
    void exit.then((code) => {
      clearTimeout(timer);
      reject(new Error(`exited ${code} before listening; stderr: ${err}`));
    });
  });
}

/** `dantinox load` of the loopback tests against `url`: model tiny, concurrency 1 and 4, 8 requests of 8 → 5 tokens. */
export function tinyLoadArgs(url: string, out: string): string[] {
  return [
    'load',
    url,
    '--model',
    'tiny',
    '--concurrency',
    '1,4',
    '--requests',
    '8',
    '--input-tokens',
    '8',
    '--output-tokens',
    '5',
    '--out',
    out,
  ];
}
