/**
 * `bench --trace` for one variant: a private folder for ONNX Runtime's profile, and after the model is disposed
 * (which writes that profile) one `trace.json` in the variant's folder — dantinox's spans and the engine's kernel
 * events of the timed calls on one clock.
 *
 * @packageDocumentation
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DantinoxError } from '../errors.js';
import { messages } from '../messages.js';
import type { EngineName } from '../models/engines/engine-name.js';
import { defaultEngines } from '../models/engines/engine-registry.js';
import { buildChromeTrace, type ChromeTrace, hrtimeClock, TraceRecorder } from '../profiling/index.js';
import { TRACE_FILE } from './output-dir.js';

/** The trace of one variant while it runs. */
export interface VariantTrace {
  /** Records dantinox's spans and the engine calls. */
  readonly recorder: TraceRecorder;
  /** The prefix to open the model with, when the engine has an operator profiler. */
  readonly profileFilePrefix?: string;
  /**
   * Writes `trace.json` into `folder` (after the model was disposed), with `otherData` (e.g. the profiler's
   * overhead) in its `otherData`, and removes the profile folder; returns its path and contents.
   */
  write(
    folder: string,
    name: string,
    otherData?: Readonly<Record<string, unknown>>,
  ): { readonly path: string; readonly trace: ChromeTrace };
  /** Removes the profile folder without writing a trace (the model could not be built). */
  discard(): void;
}

/** Starts the trace of a variant on `engine`: ONNX Runtime's profiler on when the engine has one. */
export function startVariantTrace(engine: EngineName): VariantTrace {
  const recorder = new TraceRecorder(hrtimeClock);
  const profiled = defaultEngines.get(engine).operatorProfile;
  const dir = profiled ? mkdtempSync(join(tmpdir(), 'dantinox-trace-')) : undefined;
  return {
    recorder,
    ...(dir === undefined ? {} : { profileFilePrefix: join(dir, 'ort') }),
    discard(): void {
      if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
    },
    write(folder, name, otherData) {
      try {
        let ortProfile: unknown;
        if (dir !== undefined) {
          const file = readdirSync(dir).find((f) => f.startsWith('ort') && f.endsWith('.json'));
          if (file === undefined) throw new DantinoxError('IO', messages.ortTraceMissing(dir));
          ortProfile = JSON.parse(readFileSync(join(dir, file), 'utf8'));
        }
        const trace = buildChromeTrace({
          name,
          spans: recorder.events(),
          engineCalls: recorder.engineCalls(),
          ...(otherData === undefined ? {} : { otherData }),
          ...(ortProfile === undefined
            ? { kernelsAbsent: messages.traceKernelsAbsent(engine) }
            : { ortProfile }),
        });
        const path = join(folder, TRACE_FILE);
        writeFileSync(path, JSON.stringify(trace));
        return { path, trace };
      } finally {
        if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
