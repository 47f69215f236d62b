/**
 * The TypeScript blocks of README.md and of the `docs/` pages, type-checked as they stand under the repository's
 * strict `tsconfig.json`, with the package's import names (`dantinox`, `dantinox/<layer>`) mapped to `src/`.
 *
 * Every ```ts block is checked, each as its own module. A block that uses names the reader supplies (a `model`,
 * a `prompt`, a function of theirs) declares them in an HTML comment right above the fence, which Markdown does
 * not render:
 *
 *     <!-- ts-context
 *     import type { Model } from 'dantinox/models';
 *     declare const model: Model;
 *     -->
 *     ```ts
 *     …
 */
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** One ```ts block of a Markdown page. */
export interface Snippet {
  /** The repository-relative page it is on, e.g. `README.md` or `docs/library.md`. */
  readonly page: string;
  /** 1-based line of the opening fence. */
  readonly line: number;
  /** The heading the block sits under. */
  readonly heading: string;
  /** The block's code. */
  readonly code: string;
  /** Declarations from the `<!-- ts-context … -->` comment right above the fence ('' when none). */
  readonly context: string;
}

const CONTEXT_OPEN = '<!-- ts-context\n';

/** Every ```ts / ```typescript block of `markdown` (the text of `page`), in order. */
export function tsSnippets(markdown: string, page = 'README.md'): Snippet[] {
  const lines = markdown.split('\n');
  const out: Snippet[] = [];
  let heading = '';
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    if (/^#{1,6} /.test(line)) heading = line.replace(/^#+ /, '');
    const fence = /^(`{3,})(\w*)\s*$/.exec(line);
    if (!fence) continue;
    const end = lines.findIndex((l, j) => j > i && l.startsWith(fence[1] as string) && l.trim() === fence[1]);
    const close = end < 0 ? lines.length : end;
    if (fence[2] === 'ts' || fence[2] === 'typescript') {
      const above = lines.slice(0, i).join('\n').trimEnd();
      const comment = above.endsWith('-->') ? above.slice(above.lastIndexOf('<!--'), -3) : '';
      const context = comment.startsWith(CONTEXT_OPEN) ? comment.slice(CONTEXT_OPEN.length) : '';
      out.push({ page, line: i + 1, heading, code: lines.slice(i + 1, close).join('\n'), context });
    }
    i = close;
  }
  return out;
}

/**
 * Virtual file name of a snippet: in `test/docs/` (inside the repository, so the package's `"type": "module"`
 * applies, and a context's `../../examples/…` import resolves), one per page and line.
 */
const fileOf = (s: Snippet): string =>
  join(ROOT, 'test', 'docs', `${s.page.replaceAll('/', '__')}-line-${s.line}.ts`);

/**
 * Type-checks `snippets` in one program and returns the diagnostics per snippet, formatted as
 * `<page>:<line>: <message>` (line numbers point into the page; '' means the snippet is clean).
 */
export function typecheckSnippets(snippets: readonly Snippet[]): string[] {
  const configFile = ts.readConfigFile(join(ROOT, 'tsconfig.json'), ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(configFile.config, ts.sys, ROOT);
  const options: ts.CompilerOptions = {
    ...parsed.options,
    noEmit: true,
    noUnusedLocals: false, // a snippet may define a class or value only to show it
    paths: { dantinox: ['./src/index.ts'], 'dantinox/*': ['./src/*/index.ts'] },
  };
  // Context first, then the block: a diagnostic on file line k is page line fence + k − (context lines).
  const sources = new Map(snippets.map((s) => [fileOf(s), `${s.context}${s.code}\nexport {};\n`] as const));
  const contextLines = (s: Snippet): number => (s.context === '' ? 0 : s.context.split('\n').length - 1);
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, version, onError, create) => {
    const text = sources.get(name);
    return text === undefined
      ? getSourceFile(name, version, onError, create)
      : ts.createSourceFile(name, text, version, true);
  };
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (name) => sources.has(name) || fileExists(name);
  const readFile = host.readFile.bind(host);
  host.readFile = (name) => sources.get(name) ?? readFile(name);
  const program = ts.createProgram([...sources.keys()], options, host);
  return snippets.map((s) => {
    const file = program.getSourceFile(fileOf(s));
    if (!file) return `${s.page}:${s.line}: not compiled`;
    return [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)]
      .map((d) => {
        const at = d.start === undefined ? 0 : file.getLineAndCharacterOfPosition(d.start).line;
        return `${s.page}:${s.line + 1 + at - contextLines(s)}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
      })
      .join('\n');
  });
}

/** The README's text. */
export const readmeText = (): string => readFileSync(join(ROOT, 'README.md'), 'utf8');
