/**
 * The loopback-only static server the browser page is loaded from: the page, onnxruntime-web's script and WASM
 * files and the model's ONNX files, with the headers that make the page cross-origin isolated (COOP `same-origin`,
 * COEP `require-corp`, CORP `same-origin` on every asset) — without them onnxruntime-web silently runs one thread
 * and `performance.now()` is clamped to 100 µs.
 *
 * @packageDocumentation
 */
import { createReadStream, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { basename, join } from 'node:path';

/** Options of {@link startPageServer}. */
export interface PageServerOptions {
  /** Folder of onnxruntime-web's `dist` files, served under `/ort/`. */
  readonly ortDist: string;
  /** The onnxruntime-web script the page loads, e.g. `ort.wasm.min.js` (`ort.webgpu.min.js` for WebGPU). */
  readonly ortScript: string;
  /** Files of the model, served under `/model/<name>` (`model.onnx`, `model.onnx_data`). */
  readonly modelFiles: readonly string[];
  /**
   * Send the cross-origin isolation headers. Off only to measure what a page without them gets.
   * @default true
   */
  readonly isolated?: boolean;
}

/** A running {@link startPageServer}. */
export interface PageServer {
  /** Origin of the server, e.g. `http://127.0.0.1:41234`. */
  readonly origin: string;
  /**
   * Serves `bytes` once at the returned path (`/exchange/<n>`), for the page to fetch: binary over loopback HTTP
   * instead of base64 text through the driver, which carries a few MB/s.
   */
  offer(bytes: Uint8Array): string;
  /**
   * The body the page POSTed to `/exchange/<id>` (each taken once), or `undefined` if none arrived: how the page
   * sends logits back.
   */
  take(id: string): Buffer | undefined;
  /** Stops the server (open connections are closed). */
  close(): Promise<void>;
}

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.wasm': 'application/wasm',
  '.html': 'text/html; charset=utf-8',
};

/** The content type of a served file, from its extension. */
function contentType(name: string): string {
  const dot = name.lastIndexOf('.');
  return CONTENT_TYPES[dot < 0 ? '' : name.slice(dot)] ?? 'application/octet-stream';
}

/**
 * Starts the server on `127.0.0.1` and an ephemeral port: `/` is a page that loads `ortScript`; `/ort/<file>`
 * reads onnxruntime-web's folder (file names only, no sub-paths); `/model/<name>` the model files by base name;
 * `/exchange/<id>` the bytes {@link PageServer.offer} put there (GET, once) or the page's uploads (POST, read with
 * {@link PageServer.take}). Anything else is a 404.
 */
export async function startPageServer(options: PageServerOptions): Promise<PageServer> {
  const isolation: Record<string, string> =
    options.isolated === false
      ? {}
      : {
          'Cross-Origin-Opener-Policy': 'same-origin',
          'Cross-Origin-Embedder-Policy': 'require-corp',
          'Cross-Origin-Resource-Policy': 'same-origin',
        };
  const models = new Map(options.modelFiles.map((path) => [basename(path), path]));
  const offered = new Map<string, Uint8Array>();
  const received = new Map<string, Buffer>();
  let nextOffer = 1;
  const page = `<!doctype html><meta charset="utf-8"><title>dantinox</title><script src="/ort/${options.ortScript}"></script>`;
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const send = (path: string, name: string): void => {
      let size: number;
      try {
        size = statSync(path).size;
      } catch {
        response.writeHead(404, isolation).end();
        return;
      }
      response.writeHead(200, { ...isolation, 'Content-Type': contentType(name), 'Content-Length': size });
      createReadStream(path).pipe(response);
    };
    const [, area, name, ...rest] = url.pathname.split('/');
    if (url.pathname === '/') {
      response.writeHead(200, { ...isolation, 'Content-Type': contentType('.html') }).end(page);
    } else if (area === 'ort' && name !== undefined && rest.length === 0 && !name.startsWith('.')) {
      send(join(options.ortDist, name), name);
    } else if (area === 'model' && name !== undefined && rest.length === 0 && models.has(name)) {
      send(models.get(name) as string, name);
    } else if (area === 'exchange' && name !== undefined && rest.length === 0 && request.method === 'POST') {
      const parts: Buffer[] = [];
      request.on('data', (part: Buffer) => parts.push(part));
      request.on('end', () => {
        received.set(name, Buffer.concat(parts));
        response.writeHead(204, isolation).end();
      });
    } else if (area === 'exchange' && name !== undefined && rest.length === 0 && offered.has(name)) {
      const bytes = offered.get(name) as Uint8Array;
      offered.delete(name);
      response
        .writeHead(200, { ...isolation, 'Content-Type': contentType(''), 'Content-Length': bytes.byteLength })
        .end(bytes);
    } else {
      response.writeHead(404, isolation).end();
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    offer: (bytes) => {
      const id = `o${nextOffer++}`;
      offered.set(id, bytes);
      return `/exchange/${id}`;
    },
    take: (id) => {
      const body = received.get(id);
      received.delete(id);
      return body;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
