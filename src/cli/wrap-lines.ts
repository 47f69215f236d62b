/**
 * Lines a person reads on a terminal, kept within a width: a longer line is broken at word boundaries, its
 * continuation lines indented under its text.
 *
 * @packageDocumentation
 */
import type { CliWriter } from './cli-io.js';

/** Longest line, in characters, of what `dantinox bench` prints for a person to read. */
export const MAX_LINE = 160;

/**
 * `line` broken at spaces into lines of at most `width` characters; continuation lines are indented two spaces
 * more than the line (under the text of a `- ` bullet), and the spaces at a break are dropped. A word longer than
 * the room left (a long path) stays whole on a line of its own. A line within `width` is returned as is.
 */
export function wrapLine(line: string, width = MAX_LINE): string[] {
  if (line.length <= width) return [line];
  const lead = /^ */.exec(line)?.[0].length ?? 0;
  const indent = ' '.repeat(lead + 2);
  const words = line.slice(lead).split(' ');
  const out: string[] = [];
  let current = line.slice(0, lead) + (words.shift() ?? '');
  for (const word of words) {
    if (current.length + 1 + word.length <= width) current += ` ${word}`;
    else if (word !== '') {
      out.push(current.trimEnd());
      current = indent + word;
    }
  }
  out.push(current);
  return out;
}

/** `text` with every line wrapped by {@link wrapLine}. */
export function wrapLines(text: string, width = MAX_LINE): string {
  return text
    .split('\n')
    .flatMap((line) => wrapLine(line, width))
    .join('\n');
}

/**
 * A writer that passes whole lines to `writer` wrapped to `width` ({@link wrapLine}); a line written in pieces is
 * held until its newline, and {@link WrappingWriter.flush} writes what is left.
 */
export interface WrappingWriter extends CliWriter {
  /** Writes the held unfinished line, if any. */
  flush(): void;
}

/** A {@link WrappingWriter} over `writer`. */
export function wrappingWriter(writer: CliWriter, width = MAX_LINE): WrappingWriter {
  let held = '';
  return {
    ...(writer.isTTY === undefined ? {} : { isTTY: writer.isTTY }),
    write(text: string) {
      const lines = (held + text).split('\n');
      held = lines.pop() as string;
      if (lines.length > 0) writer.write(`${lines.flatMap((l) => wrapLine(l, width)).join('\n')}\n`);
      return true;
    },
    flush() {
      if (held !== '') writer.write(wrapLines(held, width));
      held = '';
    },
  };
}
