/**
 * Which execution provider each node of the page's session was placed on, read from onnxruntime-web's own verbose
 * session log: at log severity 0 the session prints, while it is created, `Node placements` followed by either
 * `All nodes placed on [<provider>]. Number of nodes: <n>` or, per provider, `Node(s) placed on [<provider>]. Number
 * of nodes: <n>` and one `<OpType> (<node name>)` line per node. onnxruntime-web has no API for placement; this log
 * is where it says so, and the page's console carries it to the host.
 *
 * @packageDocumentation
 */
import type { OffProviderNodes } from '../../model.js';

/** Text every placement line of the session log carries (the ONNX Runtime function that prints them). */
export const PLACEMENT_LOG_TAG = 'VerifyEachNodeIsAssignedToAnEp';

/** The ONNX Runtime provider name of each browser execution provider. */
const PROVIDER_NAMES: Readonly<Record<'wasm' | 'webgpu', string>> = {
  wasm: 'CPUExecutionProvider',
  webgpu: 'WebGpuExecutionProvider',
};

/** The text after the log prefix (`… VerifyEachNodeIsAssignedToAnEp] `), or `undefined` for another line. */
function payload(line: string): string | undefined {
  const at = line.indexOf(`${PLACEMENT_LOG_TAG}]`);
  return at < 0 ? undefined : line.slice(at + PLACEMENT_LOG_TAG.length + 1);
}

/**
 * The nodes placed on another provider than `provider`, from the session log's placement `lines` (other lines are
 * ignored); `undefined` when the log has no placement summary (a build or severity that does not print it).
 */
export function offProviderNodes(
  lines: readonly string[],
  provider: 'wasm' | 'webgpu',
): OffProviderNodes | undefined {
  const wanted = PROVIDER_NAMES[provider];
  let total = 0;
  let count = 0;
  let seen = false;
  let current: string | undefined;
  const ops = new Map<string, number>();
  for (const line of lines) {
    const text = payload(line);
    if (text === undefined) continue;
    const summary = /(All nodes|Node\(s\)) placed on \[([^\]]+)\]\. Number of nodes: (\d+)/.exec(text);
    if (summary !== null) {
      seen = true;
      current = summary[2] as string;
      const n = Number(summary[3]);
      total += n;
      if (current !== wanted) count += n;
      continue;
    }
    // A node line of the current provider: two spaces, then `<OpType> (<name>)`.
    const node = /^ {2,}(\S+) \(/.exec(text);
    if (node !== null && current !== undefined && current !== wanted) {
      const op = node[1] as string;
      ops.set(op, (ops.get(op) ?? 0) + 1);
    }
  }
  if (!seen) return undefined;
  const opTypes = [...ops]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([op, n]) => `${op}×${n}`)
    .join(', ');
  return { count, opTypes, total };
}
