import { beforeAll, describe, expect, it } from 'vitest';
import { runCli as runInProcess } from '../../src/cli/index.js';
import { ensureBuilt, expectGolden, runCli } from './built-cli.js';
import { captureIo } from './capture-io.js';

beforeAll(() => ensureBuilt(), 180_000);

/** The commands the program help lists (its "Commands:" section, without `help`). */
function listedCommands(help: string): string[] {
  const section = help.split('\nCommands:\n')[1]?.split('\n\n')[0] ?? '';
  return [...section.matchAll(/^ {2}([a-z][\w-]*) /gm)]
    .map((m) => m[1] as string)
    .filter((c) => c !== 'help');
}

describe('--help', () => {
  it('the program help lists the commands, with examples and exit codes', async () => {
    const run = await runCli(['--help']);
    expect(run.code).toBe(0);
    expect(listedCommands(run.stdout)).toEqual(expect.arrayContaining(['bench', 'flops', 'plot', 'report']));
    expect(run.stdout).toContain('Exit codes: 0 ok, 1 a task failed');
    expectGolden('dantinox.txt', run.stdout);
  });

  // In process (the binary is a two-line shell around runCli, whose own help is checked above): one process
  // start per command cost about a minute of the suite.
  it('every listed command has --help with examples, matching its golden file (UPDATE_GOLDEN=1 creates it)', async () => {
    const program = await runCli(['--help']);
    for (const command of listedCommands(program.stdout)) {
      const io = captureIo(process.cwd());
      const code = await runInProcess([command, '--help'], io);
      const stdout = io.out.join('');
      expect(code, command).toBe(0);
      expect(io.err.join(''), command).toBe('');
      expect(stdout, command).toContain('Examples:');
      expectGolden(`${command}.txt`, stdout);
    }
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
