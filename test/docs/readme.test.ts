import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const root = new URL('../../', import.meta.url);
const readme = readFileSync(new URL('README.md', root), 'utf8');

/** The first fenced block of `lang` after `heading`. */
function blockAfter(heading: string, lang: string): string {
  const start = readme.indexOf(heading);
  expect(start, `README has no "${heading}"`).toBeGreaterThanOrEqual(0);
  const open = readme.indexOf(`\`\`\`${lang}\n`, start);
  const close = readme.indexOf('\n```', open + 1);
  return readme.slice(open + lang.length + 4, close + 1);
}

/** A snippet file as the README shows it: without its `//` header, with package imports instead of src paths. */
function asInReadme(path: string): string {
  return readFileSync(new URL(path, root), 'utf8')
    .split('\n')
    .filter((line) => !line.startsWith('//'))
    .join('\n')
    .replace(/^\n+/, '')
    .replace(/'\.\.\/\.\.\/src\/index\.js'/g, "'dantinox'")
    .replace(/'\.\.\/\.\.\/src\/(\w+)\/index\.js'/g, "'dantinox/$1'");
}

describe('README', () => {
  it('starts with the two newcomer commands', () => {
    const lines = readme.split('\n');
    expect(lines[0]).toBe('# dantinox');
    expect(lines.slice(2, 6).join('\n')).toMatch(
      /^```bash\nnpm ci && npx dantinox bench .*\nnpm ci && npm test .*\n```$/,
    );
  });

  it('the library quickstart is test/docs/readme-quickstart.ts (type-checked), with package imports', () => {
    expect(blockAfter('## Library quickstart', 'ts')).toBe(asInReadme('test/docs/readme-quickstart.ts'));
  });

  it('the result-sink example is test/docs/readme-result-sink.ts (type-checked), with package imports', () => {
    expect(blockAfter('### Result sinks and run directories', 'ts')).toBe(
      asInReadme('test/docs/readme-result-sink.ts'),
    );
  });

  it('shows a chart picture that exists', () => {
    const picture = /!\[[^\]]+\]\((docs\/[^)]+\.png)\)/.exec(readme);
    expect(picture).not.toBeNull();
    expect(
      readFileSync(new URL(picture?.[1] as string, root))
        .subarray(1, 4)
        .toString(),
    ).toBe('PNG');
  });
});
