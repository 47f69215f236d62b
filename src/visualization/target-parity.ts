/**
 * Node vs browser side by side: for each variant run in the browser (`target` = `browser`), its speed ÷ the speed
 * of the Node run of the same model, dtype and head dtype at the thread count the browser run asked for — the
 * parity ratio (1: as fast as Node; 0.5: half as fast).
 *
 * @packageDocumentation
 */
import { isEmptyCell } from './chart-data.js';
import type { ModelRecord } from './series.js';

/** The parity columns {@link withTargetParity} adds: browser speed ÷ Node speed, prefill and decode. */
export const PARITY_COLUMNS = ['parity_prefill', 'parity_decode'] as const;

const num = (v: unknown): number | undefined => {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : Number.NaN;
  return Number.isFinite(n) && n > 0 ? n : undefined;
};
const text = (v: unknown): string => (isEmptyCell(v) ? '' : String(v));

/** Prefill speed of a record, in tokens/s: its peak throughput, else one prompt over the mean prefill time. */
function prefillSpeed(r: ModelRecord): number | undefined {
  const peak = num(r.values['peak_tps']);
  if (peak !== undefined) return peak;
  const ms = num(r.values['prefill_mean_ms']);
  return ms === undefined ? undefined : 1000 / ms;
}

/** The Node record a browser record is compared with: same model, dtype, head dtype, and its asked threads. */
function nodeTwin(browser: ModelRecord, records: readonly ModelRecord[]): ModelRecord | undefined {
  const b = browser.values;
  const threads = text(b['threads_asked'] ?? b['threads']);
  return records.find((r) => {
    const v = r.values;
    return (
      text(v['target'] ?? 'node') === 'node' &&
      text(v['model']) === text(b['model']) &&
      text(v['dtype']) === text(b['dtype']) &&
      text(v['head_dtype']) === text(b['head_dtype']) &&
      text(v['threads']) === threads
    );
  });
}

/**
 * The records with `parity_prefill` (peak throughput, or 1 / mean prefill time, browser ÷ Node) and
 * `parity_decode` (decode tokens/s, browser ÷ Node) on every browser record that has a Node twin (same model,
 * dtype, head dtype, and Node threads = the browser's threads asked). Node records get `target` `node` when some
 * record is a browser one, so the table tells them apart. Other records are returned as they are.
 */
export function withTargetParity(records: readonly ModelRecord[]): ModelRecord[] {
  if (!records.some((r) => text(r.values['target']) === 'browser')) return [...records];
  return records.map((r) => {
    if (text(r.values['target'] ?? 'node') === 'node')
      return { ...r, values: { ...r.values, target: 'node' } };
    const twin = nodeTwin(r, records);
    if (twin === undefined) return r;
    const ratio = (a: number | undefined, b: number | undefined) =>
      a === undefined || b === undefined ? undefined : a / b;
    const prefill = ratio(prefillSpeed(r), prefillSpeed(twin));
    const decode = ratio(num(r.values['decode_tps']), num(twin.values['decode_tps']));
    return {
      ...r,
      values: {
        ...r.values,
        ...(prefill === undefined ? {} : { parity_prefill: prefill }),
        ...(decode === undefined ? {} : { parity_decode: decode }),
        parity_baseline: twin.series,
      },
    };
  });
}
