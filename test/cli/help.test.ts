import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, expectGolden, runCli } from './built-cli.js';

beforeAll(() => ensureBuilt(), 180_000);

/** Every command; each must have a golden `--help` (regenerate with UPDATE_GOLDEN=1). */
const COMMANDS = ['bench', 'flops', 'plot', 'report'] as const;

describe('--help', () => {
  it('the program help lists every command, with examples and exit codes', async () => {
    const run = await runCli(['--help']);
    expect(run.code).toBe(0);
    for (const command of COMMANDS) expect(run.stdout).toContain(`  ${command} `);
    expect(run.stdout).toContain('Exit codes: 0 ok, 1 a task failed');
    expectGolden('dantinox.txt', run.stdout);
  });

  it.each(COMMANDS)('dantinox %s --help matches its golden file and has examples', async (command) => {
    const run = await runCli([command, '--help']);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    expect(run.stdout).toContain('Examples:');
    expectGolden(`${command}.txt`, run.stdout);
  });

  it('no command prints the help on stderr and exits 2; --version prints the package version', async () => {
    const none = await runCli([]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('Usage: dantinox');
    const { readFileSync } = await import('node:fs');
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    const version = await runCli(['--version']);
    expect(version).toEqual({ code: 0, stdout: `${pkg.version}\n`, stderr: '' });
    const unknown = await runCli(['bnech']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("unknown command 'bnech'");
  });
});
