/**
 * `dantinox calibrate`'s table: a calibration's fingerprint, probes, ceilings and theoretical peak as text.
 *
 * @packageDocumentation
 */
import type { Calibration, CalibrationOutcome } from '../benchmarking/index.js';

const fixed = (v: number | undefined, digits = 1): string => (v === undefined ? '—' : v.toFixed(digits));

/** The calibration as text: fingerprint, one line per probe, the ceilings and the theoretical peak. */
export function formatCalibration(outcome: CalibrationOutcome): string {
  const c: Calibration = outcome.calibration;
  const f = c.fingerprint;
  const lines = [
    `Machine: ${f.cpuModel}, ${f.logicalCpus} logical CPUs, ${(f.totalMemoryBytes / 2 ** 30).toFixed(1)} GiB, ${f.platform}`,
    `Probes: ${f.engine} kernels, ${f.threads} threads (one calibration serves every engine)`,
    `Measured: ${c.measuredAt} in ${(c.durationMs / 1000).toFixed(1)} s, load average ${c.loadAverage.map((l) => l.toFixed(2)).join(' ')}${c.loadAverageEnd === undefined ? '' : ` → ${c.loadAverageEnd.map((l) => l.toFixed(2)).join(' ')}`}${outcome.cached ? ' (from the cache)' : ''}`,
    '',
  ];
  // The id and timing columns are as wide as their longest entry (`gemm-q8-dynamic-wide`, a probe of 1,000+ runs).
  const timings = c.probes.map((p) =>
    p.medianMs === undefined
      ? ''
      : `${fixed(p.p10Ms, 2)} (${fixed(p.medianMs, 2)}, ${fixed(p.p90Ms, 2)}, ${p.n})`,
  );
  const timingHeader = 'p10 ms (median, p90, n)';
  const idWidth = Math.max(18, ...c.probes.map((p) => p.id.length));
  const timingWidth = Math.max(timingHeader.length, ...timings.map((t) => t.length));
  lines.push(`${'probe'.padEnd(idWidth)} ${'rate'.padEnd(15)} ${timingHeader.padEnd(timingWidth)} what`);
  for (const [i, p] of c.probes.entries()) {
    const rate = p.value === undefined ? 'unavailable' : `${fixed(p.value)} ${p.unit}`;
    lines.push(
      `${p.id.padEnd(idWidth)} ${rate.padEnd(15)} ${(timings[i] as string).padEnd(timingWidth)} ${p.unavailable ?? p.description}`,
    );
  }
  lines.push('', 'Calibrated ceilings (the best probe of each dtype):');
  for (const [dtype, g] of Object.entries(c.ceilings.gemmGflops))
    lines.push(`  GEMM ${dtype}: ${fixed(g)} GFLOP/s`);
  lines.push(`  memory bandwidth: ${fixed(c.ceilings.bandwidthGbs)} GB/s`);
  if (c.theoretical !== undefined) {
    const t = Object.entries(c.theoretical.ceilings.gemmGflops).map(([d, g]) => `${d} ${fixed(g)} GFLOP/s`);
    lines.push(`Theoretical peak: ${t.join(', ')} (${c.theoretical.basis})`);
  } else if (c.theoreticalUnavailable !== undefined)
    lines.push(`Theoretical peak: ${c.theoreticalUnavailable}`);
  lines.push(
    outcome.notStored === undefined ? `Cache: ${outcome.path}` : `Cache: not stored — ${outcome.notStored}`,
  );
  if (outcome.busy !== undefined) lines.push(`Warning: ${outcome.busy}`);
  return `${lines.join('\n')}\n`;
}
