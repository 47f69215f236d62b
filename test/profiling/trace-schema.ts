/**
 * What Perfetto's JSON importer needs of a Chrome trace, checked as it would: every event has `ph`, a numeric
 * `ts`, `pid` and `tid`; complete events (`X`) a non-negative `dur`; metadata events (`M`) a name and args.
 * Returns the problems found (empty when the trace imports).
 */
export function chromeTraceProblems(trace: unknown): string[] {
  const problems: string[] = [];
  const events = (trace as { traceEvents?: unknown })?.traceEvents;
  if (!Array.isArray(events)) return ['no traceEvents array'];
  events.forEach((e: Record<string, unknown>, i) => {
    const where = `event ${i} (${String(e['name'])})`;
    if (typeof e['ph'] !== 'string') problems.push(`${where}: no ph`);
    if (typeof e['ts'] !== 'number' || !Number.isFinite(e['ts'])) problems.push(`${where}: no numeric ts`);
    if (!Number.isInteger(e['pid'])) problems.push(`${where}: no integer pid`);
    if (!Number.isInteger(e['tid'])) problems.push(`${where}: no integer tid`);
    if (e['ph'] === 'X' && !(typeof e['dur'] === 'number' && e['dur'] >= 0))
      problems.push(`${where}: X without dur`);
    if (e['ph'] === 'M' && (typeof e['name'] !== 'string' || typeof e['args'] !== 'object'))
      problems.push(`${where}: M without name/args`);
  });
  return problems;
}

/** Complete events of a trace. */
export interface XEvent {
  readonly ph: string;
  readonly name: string;
  readonly cat?: string;
  readonly ts: number;
  readonly dur: number;
  readonly pid: number;
  readonly tid: number;
  readonly args?: Record<string, unknown>;
}

/** Whether `inner` lies within `outer` (µs, with `slackUs` for float rounding). */
export const within = (inner: XEvent, outer: XEvent, slackUs = 1e-6): boolean =>
  inner.ts >= outer.ts - slackUs && inner.ts + inner.dur <= outer.ts + outer.dur + slackUs;
