/**
 * Resident memory of this process: the current RSS and the peak RSS ("high-water mark") since the last
 * {@link resetPeakRss}, read from `/proc/self/status` on Linux (`VmRSS`, `VmHWM`; the peak is reset by writing `5`
 * to `/proc/self/clear_refs`). Elsewhere the peak is the process's peak since it started
 * (`process.resourceUsage().maxRSS`) and cannot be reset.
 *
 * @packageDocumentation
 */
import { readFileSync, writeFileSync } from 'node:fs';

/** Resident memory of the process, in bytes. */
export interface RssSample {
  /** Resident set size now, in bytes. */
  readonly rssBytes: number;
  /** Largest resident set size since the last reset (or since the process started), in bytes. */
  readonly peakRssBytes: number;
  /** Whether the peak covers only the time since the last successful {@link resetPeakRss}. */
  readonly peakSinceReset: boolean;
}

let resetWorked = false;

/** Reads `VmRSS` and `VmHWM` (kB) from a `/proc/<pid>/status` text; `undefined` when absent. */
export function parseProcStatus(text: string):
  | {
      /** Resident set size now (`VmRSS`), in bytes. */
      rssBytes: number;
      /** Peak resident set size (`VmHWM`), in bytes. */
      peakRssBytes: number;
    }
  | undefined {
  const kb = (name: string): number | undefined => {
    const m = new RegExp(`^${name}:\\s+(\\d+)\\s*kB`, 'm').exec(text);
    return m === null ? undefined : Number(m[1]) * 1024;
  };
  const rss = kb('VmRSS');
  const peak = kb('VmHWM');
  return rss === undefined || peak === undefined ? undefined : { rssBytes: rss, peakRssBytes: peak };
}

/** The process's current and peak resident memory, in bytes. */
export function readRss(): RssSample {
  try {
    const parsed = parseProcStatus(readFileSync('/proc/self/status', 'utf8'));
    if (parsed !== undefined) return { ...parsed, peakSinceReset: resetWorked };
  } catch {
    // Not Linux: fall through to Node's counters.
  }
  return {
    rssBytes: process.memoryUsage.rss(),
    peakRssBytes: process.resourceUsage().maxRSS * 1024,
    peakSinceReset: false,
  };
}

/**
 * Starts a new peak-RSS window (Linux: the high-water mark becomes the current RSS). Returns whether it worked;
 * when it did not, later peaks are the process's peak since it started.
 */
export function resetPeakRss(): boolean {
  try {
    writeFileSync('/proc/self/clear_refs', '5');
    resetWorked = true;
  } catch {
    resetWorked = false;
  }
  return resetWorked;
}

/** Runs `work` and returns its result with its wall time (ms) and the process's peak RSS while it ran (bytes). */
export async function measureResources<T>(work: () => Promise<T>): Promise<{
  /** What `work` resolved to. */
  readonly value: T;
  /** Wall time of `work`, in ms. */
  readonly ms: number;
  /** The process's peak RSS while `work` ran. */
  readonly peak: RssSample;
}> {
  resetPeakRss();
  const t0 = process.hrtime.bigint();
  const value = await work();
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  return { value, ms, peak: readRss() };
}
