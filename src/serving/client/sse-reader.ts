/**
 * `SseReader`: an incremental reader of Server-Sent Events. Bytes go in as they arrived (one TCP chunk at a time,
 * split anywhere, even inside a UTF-8 character or a `\r\n`); complete events come out, each stamped with the
 * arrival time of the chunk that completed it. Follows the WHATWG event-stream rules that matter for LLM servers:
 * `event:` and `data:` fields (several `data:` lines joined by `\n`), comments (`:`), blank line = dispatch.
 *
 * @packageDocumentation
 */
import { StringDecoder } from 'node:string_decoder';

/** One dispatched Server-Sent Event. */
export interface SseEvent {
  /** The `event:` field; `message` when the event had none. */
  readonly event: string;
  /** The `data:` lines, joined by `\n`. */
  readonly data: string;
  /** Arrival time of the chunk that completed the event, in milliseconds on the caller's clock. */
  readonly atMs: number;
  /** Index of that chunk among the chunks pushed. */
  readonly chunk: number;
}

/**
 * Reads a Server-Sent Events stream chunk by chunk.
 *
 * @example
 * ```ts
 * const reader = new SseReader();
 * const events = [...reader.push(Buffer.from('data: {"a":1}\n\nda'), 10), ...reader.push(Buffer.from('ta: 2\n\n'), 11)];
 * // events: [{ data: '{"a":1}', atMs: 10 }, { data: '2', atMs: 11 }]
 * ```
 */
export class SseReader {
  readonly #decoder = new StringDecoder('utf8');
  #pending = '';
  #event = '';
  #data: string[] = [];
  #hasData = false;
  #chunks = 0;

  /** Feeds one chunk as it arrived at `atMs` (milliseconds); returns the events it completed, in order. */
  push(bytes: Uint8Array | string, atMs: number): SseEvent[] {
    const chunk = this.#chunks++;
    const text = typeof bytes === 'string' ? bytes : this.#decoder.write(Buffer.from(bytes));
    const out: SseEvent[] = [];
    let buffer = this.#pending + text;
    // A trailing `\r` may be the first half of `\r\n`: keep it for the next chunk.
    let held = '';
    if (buffer.endsWith('\r')) {
      held = '\r';
      buffer = buffer.slice(0, -1);
    }
    let start = 0;
    for (;;) {
      const lf = buffer.indexOf('\n', start);
      const cr = buffer.indexOf('\r', start);
      const end = lf < 0 ? cr : cr < 0 ? lf : Math.min(lf, cr);
      if (end < 0) break;
      this.#line(buffer.slice(start, end), atMs, chunk, out);
      start = end + (buffer[end] === '\r' && buffer[end + 1] === '\n' ? 2 : 1);
    }
    this.#pending = buffer.slice(start) + held;
    return out;
  }

  /** Ends the stream at `atMs`: an event left without its closing blank line is dispatched (lenient). */
  end(atMs: number): SseEvent[] {
    const out: SseEvent[] = [];
    const rest = this.#pending + this.#decoder.end();
    this.#pending = '';
    for (const line of rest.split(/\r\n|\r|\n/))
      if (line !== '') this.#line(line, atMs, this.#chunks - 1, out);
    this.#line('', atMs, Math.max(0, this.#chunks - 1), out);
    return out;
  }

  #line(line: string, atMs: number, chunk: number, out: SseEvent[]): void {
    if (line === '') {
      if (this.#hasData)
        out.push({ event: this.#event || 'message', data: this.#data.join('\n'), atMs, chunk });
      this.#event = '';
      this.#data = [];
      this.#hasData = false;
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') {
      this.#data.push(value);
      this.#hasData = true;
    } else if (field === 'event') this.#event = value;
  }
}
