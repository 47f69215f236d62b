import { createServer as createHttpServer } from 'node:http';
import { type AddressInfo, createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ConnectionPool, type RawExchange } from '../../../src/serving/client/http-connection.js';
import { bodyPieces } from '../../../src/serving/client/response-framer.js';
import { monotonicMs } from '../../../src/serving/client/send-loop.js';

/** A raw TCP server on loopback answering each request with `respond(socket, n)` (n: requests on that socket). */
async function rawServer(
  respond: (socket: Socket, n: number) => void,
): Promise<{ url: URL; server: Server; connections: () => number }> {
  let connections = 0;
  const server = createServer((socket) => {
    connections++;
    let n = 0;
    socket.on('data', (data) => {
      if (data.includes('\r\n\r\n')) respond(socket, n++);
    });
    socket.on('error', () => undefined);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return { url: new URL(`http://127.0.0.1:${port}/v1/completions`), server, connections: () => connections };
}

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
});

const request = (url: URL): Uint8Array =>
  Buffer.from(`POST ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nContent-Length: 2\r\n\r\n{}`);

const body = (raw: RawExchange): string =>
  Buffer.concat(bodyPieces(raw.reads).pieces.map((p) => p.bytes)).toString();

describe('ConnectionPool over raw sockets', () => {
  it('keeps one connection alive across requests, stamping each read in order', async () => {
    const http = createHttpServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: 1\n\n');
        setTimeout(() => res.end('data: [DONE]\n\n'), 5);
      });
    });
    let connections = 0;
    http.on('connection', () => connections++);
    await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
    servers.push(http as unknown as Server);
    const url = new URL(`http://127.0.0.1:${(http.address() as AddressInfo).port}/v1/completions`);
    const pool = new ConnectionPool({ url, tls: {} }, 1, monotonicMs);
    try {
      for (let i = 0; i < 3; i++) {
        const raw = await pool.send(request(url), 5000);
        expect(raw).toMatchObject({ status: 'complete', httpStatus: 200 });
        expect(body(raw)).toBe('data: 1\n\ndata: [DONE]\n\n');
        const times = raw.reads.map((r) => r.atMs);
        expect(times).toEqual([...times].sort((a, b) => a - b));
        expect(raw.sentAtMs).toBeLessThanOrEqual(times[0] ?? Number.NaN);
        expect(raw.endedAtMs).toBe(times.at(-1));
      }
      expect(connections).toBe(1);
    } finally {
      pool.close();
    }
  });

  it('a server that says Connection: close gets a new connection for the next request', async () => {
    const s = await rawServer((socket) =>
      socket.end('HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok'),
    );
    servers.push(s.server);
    const pool = new ConnectionPool({ url: s.url, tls: {} }, 1, monotonicMs);
    for (let i = 0; i < 2; i++) expect(body(await pool.send(request(s.url), 5000))).toBe('ok');
    expect(s.connections()).toBe(2);
    pool.close();
  });

  it('a body without length ends at the close (HTTP/1.0)', async () => {
    const s = await rawServer((socket) => socket.end('HTTP/1.0 200 OK\r\n\r\nall of it'));
    servers.push(s.server);
    const pool = new ConnectionPool({ url: s.url, tls: {} }, 1, monotonicMs);
    const raw = await pool.send(request(s.url), 5000);
    expect(raw.status).toBe('complete');
    expect(body(raw)).toBe('all of it');
    pool.close();
  });

  it('classifies a cut body, bytes that are not HTTP, a refused connection', async () => {
    const cut = await rawServer((socket) =>
      socket.end('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nda'),
    );
    const junk = await rawServer((socket) => socket.write('SSH-2.0-OpenSSH\r\n\r\n'));
    servers.push(cut.server, junk.server);
    const ask = async (url: URL) => {
      const pool = new ConnectionPool({ url, tls: {} }, 1, monotonicMs);
      try {
        return await pool.send(request(url), 5000);
      } finally {
        pool.close();
      }
    };
    expect(await ask(cut.url)).toMatchObject({ status: 'failed', failure: 'broken-stream', httpStatus: 200 });
    expect(await ask(junk.url)).toMatchObject({ status: 'failed', failure: 'broken-stream' });
    const closed = await rawServer(() => undefined);
    await new Promise((r) => closed.server.close(r));
    expect(await ask(closed.url)).toMatchObject({ status: 'failed', failure: 'connection', reads: [] });
  });

  it('a server that closes a kept-alive socket after its response: the next request is sent again, once, on a new one', async () => {
    // The server answers the first request of each connection and then drops it without a word (llama-server).
    const s = await rawServer((socket, n) => {
      if (n === 0) socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
      setTimeout(() => socket.destroy(), 20);
    });
    servers.push(s.server);
    const pool = new ConnectionPool({ url: s.url, tls: {} }, 1, monotonicMs);
    expect(body(await pool.send(request(s.url), 5000))).toBe('ok');
    await new Promise((r) => setTimeout(r, 50));
    expect(body(await pool.send(request(s.url), 5000))).toBe('ok');
    expect(s.connections()).toBe(2);
    pool.close();
  });

  it('at most maxSockets requests in flight; the others wait their turn, first come first served', async () => {
    let open = 0;
    let most = 0;
    const s = await rawServer((socket) => {
      open++;
      most = Math.max(most, open);
      setTimeout(() => {
        open--;
        socket.write('HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx');
      }, 10);
    });
    servers.push(s.server);
    const pool = new ConnectionPool({ url: s.url, tls: {} }, 3, monotonicMs);
    const order: number[] = [];
    await Promise.all(
      Array.from({ length: 9 }, (_, i) => pool.send(request(s.url), 5000).then(() => order.push(i))),
    );
    expect(most).toBe(3);
    expect(s.connections()).toBe(3);
    expect(order.slice(3)).toEqual([3, 4, 5, 6, 7, 8]);
    pool.close();
  });
});
