/**
 * Child programs for a benchmark process that holds models: every `child_process` call forks the calling process,
 * and a fork makes the forked process cold again. Measured on a 2-vCPU AMD EPYC (Zen 5): a warm ONNX Runtime
 * 512-token prefill of a 124 M model took 530–600 ms; the first after one `execFileSync('/bin/true')` took 2.4–2.8 s
 * (100,000 minor page faults: copy-on-write on every page the engine writes), the second 0.9–1.0 s, and only the
 * third was warm. `startSpawner` forks one small Node process while the benchmark is still small — before any model
 * is built — and runs every later program from there, so the measuring process never forks again.
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** A request to the spawner process: run `file` with `args`, return its standard output. */
export interface SpawnRequest {
  readonly id: number;
  readonly file: string;
  readonly args: readonly string[];
}

/** The spawner's answer to {@link SpawnRequest} `id`: the program's standard output, or why it failed. */
export type SpawnReply =
  | { readonly id: number; readonly status: 'ok'; readonly stdout: string }
  | { readonly id: number; readonly status: 'failed'; readonly error: string };

/** Runs programs from a small helper process (see the module's comment). */
export interface Spawner {
  /** Runs `file` with `args` to completion and resolves to its standard output (standard error discarded). */
  run(file: string, args: readonly string[]): Promise<string>;
  /** Ends the helper process. */
  close(): void;
}

/** Forks the helper process; call it before building any model. */
export function startSpawner(): Spawner {
  const child = fork(fileURLToPath(new URL('./spawner-worker.js', import.meta.url)), [], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const pending = new Map<number, { resolve: (out: string) => void; reject: (e: Error) => void }>();
  child.on('message', (reply: SpawnReply) => {
    const waiting = pending.get(reply.id);
    pending.delete(reply.id);
    if (reply.status === 'ok') waiting?.resolve(reply.stdout);
    else waiting?.reject(new Error(reply.error));
  });
  child.on('exit', (code) => {
    for (const { reject } of pending.values()) reject(new Error(`the spawner process exited (code ${code})`));
    pending.clear();
  });
  let next = 0;
  return {
    run: (file, args) =>
      new Promise((resolve, reject) => {
        const id = next++;
        pending.set(id, { resolve, reject });
        child.send({ id, file, args } satisfies SpawnRequest);
      }),
    close: () => child.disconnect(),
  };
}
