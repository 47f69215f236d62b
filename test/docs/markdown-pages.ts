/**
 * The Markdown pages the docs tests keep honest — README.md and every `docs/**\/*.md` — and what the tests read
 * from them: fenced blocks, headings (as GitHub anchors), relative links and `dantinox` command lines.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Root of the repository. */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** Repository-relative paths of README.md and every `docs/**\/*.md`, README first. */
export function markdownPages(): string[] {
  const docs = readdirSync(join(ROOT, 'docs'), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.md'))
    .map((e) => relative(ROOT, join(e.parentPath, e.name)))
    .sort();
  return ['README.md', ...docs];
}

/** The text of a repository-relative page. */
export const pageText = (page: string): string => readFileSync(join(ROOT, page), 'utf8');

/** One fenced block of a page. */
export interface FencedBlock {
  /** The info string's language ('' for a bare fence). */
  readonly lang: string;
  /** 1-based line of the opening fence. */
  readonly line: number;
  /** The lines between the fences. */
  readonly lines: readonly string[];
}

/** Every fenced block of `markdown`, in order. */
export function fencedBlocks(markdown: string): FencedBlock[] {
  const lines = markdown.split('\n');
  const out: FencedBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const fence = /^(`{3,})(\w*)\s*$/.exec(lines[i] as string);
    if (!fence) continue;
    const end = lines.findIndex((l, j) => j > i && l.trim() === fence[1]);
    const close = end < 0 ? lines.length : end;
    out.push({ lang: fence[2] as string, line: i + 1, lines: lines.slice(i + 1, close) });
    i = close;
  }
  return out;
}

/** `markdown` with every fenced block's lines blanked (line numbers kept), so prose checks skip code. */
export function withoutFences(markdown: string): string {
  const lines = markdown.split('\n');
  for (const block of fencedBlocks(markdown))
    for (let k = block.line - 1; k <= block.line + block.lines.length; k++)
      if (k < lines.length) lines[k] = '';
  return lines.join('\n');
}

/**
 * The anchor GitHub gives a heading: its rendered text lower-cased, punctuation and symbols dropped (letters,
 * digits, `_`, `-` and spaces kept), spaces turned into hyphens.
 */
export function githubSlug(heading: string): string {
  const rendered = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // links and images: their text
    .replace(/`([^`]*)`/g, '$1'); // inline code: its content
  return rendered
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors of every heading of `markdown` (a repeated heading gets `-1`, `-2`… as on GitHub). */
export function headingAnchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const m of withoutFences(markdown).matchAll(/^#{1,6} +(.+?) *#*$/gm)) {
    const slug = githubSlug(m[1] as string);
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return anchors;
}

/** One link or image of a page's prose. */
export interface PageLink {
  /** 1-based line. */
  readonly line: number;
  /** The target as written, e.g. `docs/cli.md#plugins---plugin`. */
  readonly target: string;
}

/** Every `[text](target)` and `![alt](target)` outside fenced blocks and inline code. */
export function pageLinks(markdown: string): PageLink[] {
  const prose = withoutFences(markdown)
    .split('\n')
    .map((l) => l.replace(/`[^`]*`/g, (code) => ' '.repeat(code.length)));
  return prose.flatMap((text, i) =>
    [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => ({ line: i + 1, target: m[1] as string })),
  );
}

/** One `dantinox …` command line of a page's shell blocks. */
export interface CliExample {
  /** The page it is on. */
  readonly page: string;
  /** 1-based line. */
  readonly line: number;
  /** The arguments after `dantinox`, comment removed. */
  readonly argv: readonly string[];
  /** The `error: …` line printed under it, when the page shows one. */
  readonly error?: string;
}

/** Languages of the fenced blocks whose `dantinox` lines are commands to run. */
const SHELL_BLOCKS = new Set(['', 'bash', 'sh', 'shell', 'console']);

/**
 * Every `dantinox …` command line (also `npx dantinox …`, `$ dantinox …`, `… && npx dantinox …`) of the shell
 * blocks of `page`, with the `error:` line shown under it when there is one. Synopsis lines (with `<…>`, `[…]`,
 * `…` or `|`) belong in ```text blocks and are refused here.
 */
export function cliExamples(page: string, markdown = pageText(page)): CliExample[] {
  const out: CliExample[] = [];
  for (const block of fencedBlocks(markdown)) {
    if (!SHELL_BLOCKS.has(block.lang)) continue;
    block.lines.forEach((raw, k) => {
      const m = /^(?:\$ |.*&& )?(?:npx )?dantinox (.*)$/.exec(raw);
      if (!m) return;
      const command = (m[1] as string).replace(/\s+#\s.*$/, '').trim();
      const next = block.lines[k + 1];
      out.push({
        page,
        line: block.line + 1 + k,
        argv: command.split(/\s+/),
        ...(next?.startsWith('error: ') ? { error: next } : {}),
      });
    });
  }
  return out;
}
