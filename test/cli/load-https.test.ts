/**
 * `dantinox load https://…`: a real `node:https` mock server on loopback, with a self-signed certificate made at
 * test time by `openssl` (on every CI image dantinox runs on), streaming its completions. The client trusts it only
 * through `--ca-file`; without it, or with a file that is not a PEM certificate, the load stops in one line naming
 * the flag, before any folder is written.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunDirectory } from '../../src/benchmarking/run-directory.js';
import { ExitCode } from '../../src/cli/index.js';
import { type MockServer, startMockServer } from '../serving/mock-openai-server.js';
import type { CliRun } from './built-cli.js';
import { runCliInProcess } from './capture-io.js';

const cwd = mkdtempSync(join(tmpdir(), 'dantinox-load-https-'));
let server: MockServer;

/** A P-256 key and a self-signed certificate for `cn`, valid one day, written by openssl into `cwd`. */
function selfSigned(keyFile: string, certFile: string, cn: string, extra: readonly string[] = []): void {
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      keyFile,
      '-out',
      certFile,
      '-days',
      '1',
      '-subj',
      `/CN=${cn}`,
      ...extra,
    ],
    { cwd, stdio: 'ignore' },
  );
}

beforeAll(async () => {
  // A P-256 key and a certificate for 127.0.0.1 (its subjectAltName is what Node checks), valid one day.
  selfSigned('key.pem', 'cert.pem', '127.0.0.1', ['-addext', 'subjectAltName=IP:127.0.0.1']);
  server = await startMockServer({
    ttftMs: 5,
    perTokenMs: 1,
    // As llama-server does: each request after the first finds its kept-alive socket closed and is sent again on
    // a connection of its own, so both paths of the client (pooled and fresh) must trust the CA.
    oneRequestPerConnection: true,
    tls: {
      key: readFileSync(join(cwd, 'key.pem'), 'utf8'),
      cert: readFileSync(join(cwd, 'cert.pem'), 'utf8'),
    },
  });
});
afterAll(async () => {
  await server.close();
  rmSync(cwd, { recursive: true, force: true });
});

function load(...args: string[]): Promise<CliRun> {
  return runCliInProcess(
    [
      'load',
      server.url,
      '--requests',
      '3',
      '--input-tokens',
      '8',
      '--output-tokens',
      '4',
      '--no-charts',
      ...args,
    ],
    cwd,
  );
}

describe('dantinox load over https', () => {
  it('streams from a server whose self-signed certificate --ca-file trusts', async () => {
    expect(server.url.startsWith('https://127.0.0.1:')).toBe(true);
    const run = await load('--ca-file', 'cert.pem', '--out', 'trusted');
    expect(run.stderr).toContain('ok 3/3');
    expect(run.code).toBe(ExitCode.ok);
    const cell = RunDirectory.load(join(cwd, 'trusted')).results[0]?.cells?.[0];
    expect(cell?.metrics['output_tokens']).toBe(3 * 4);
    expect(cell?.metricSamples?.['ttft_ms']).toHaveLength(3);
    expect(cell?.metrics['errors']).toBe(0);
  });

  it('stops in one line naming --ca-file when the certificate is not trusted, writing nothing', async () => {
    const before = server.received();
    const untrusted = await load('--out', 'untrusted');
    expect(untrusted.code).toBe(ExitCode.usage);
    expect(untrusted.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(untrusted.stderr).toMatch(
      /^error: The server at https:\/\/127\.0\.0\.1:\d+ presented a certificate/,
    );
    expect(untrusted.stderr).toContain('self-signed certificate');
    expect(untrusted.stderr).toContain('--ca-file <ca.pem>');
    expect(server.received()).toBe(before); // no request was sent
    expect(existsSync(join(cwd, 'untrusted'))).toBe(false);
    // A CA that did not sign it: the same line, saying so.
    selfSigned('other-key.pem', 'other.pem', 'other');
    const wrongCa = await load('--ca-file', 'other.pem', '--out', 'untrusted');
    expect(wrongCa.code).toBe(ExitCode.usage);
    expect(wrongCa.stderr).toContain('the --ca-file given did not sign it');
  });

  it('refuses a --ca-file that is missing or holds no PEM certificate, in one line', async () => {
    const missing = await load('--ca-file', 'nope.pem', '--out', 'x');
    expect(missing.code).toBe(ExitCode.usage);
    expect(missing.stderr).toMatch(/^error: --ca-file "\S*nope\.pem" cannot be read: .*\n$/);
    const key = await load('--ca-file', 'key.pem', '--out', 'x');
    expect(key.code).toBe(ExitCode.usage);
    expect(key.stderr).toMatch(/^error: --ca-file "\S*key\.pem" holds no PEM certificate .*\n$/);
    expect(existsSync(join(cwd, 'x'))).toBe(false);
  });
});
