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
  // The id column is as wide as the longest id (`gemm-q8-dynamic-wide`).
  const idWidth = Math.max(18, ...c.probes.map((p) => p.id.length));
  lines.push(`${'probe'.padEnd(idWidth)} ${'rate'.padEnd(15)} ${'median ms (p10–p90, n)'.padEnd(24)} what`);
  for (const p of c.probes) {
    const rate = p.value === undefined ? 'unavailable' : `${fixed(p.value)} ${p.unit}`;
    const timing =
      p.medianMs === undefined
        ? ''
        : `${fixed(p.medianMs, 2)} (${fixed(p.p10Ms, 2)}–${fixed(p.p90Ms, 2)}, ${p.n})`;
    lines.push(
      `${p.id.padEnd(idWidth)} ${rate.padEnd(15)} ${timing.padEnd(24)} ${p.unavailable ?? p.description}`,
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
