/**
 * The ONNX Runtime engine: lazy loading, sessions, execution providers, engine labels and position ids, used by
 * the built-in transformer and by Hugging Face ONNX folders alike.
 *
 * @packageDocumentation
 */
export {
  checkExecutionProvider,
  DEFAULT_EXECUTION_PROVIDER,
  type ExecutionProvider,
  supportedExecutionProviders,
} from './execution-provider.js';
export { loadOrt, type OrtModule, ortVersion } from './load-ort.js';
export {
  createOrtSession,
  type OrtSession,
  type OrtSessionOptions,
  ortEngineLabel,
  resolveThreads,
} from './ort-session.js';
export { positionIds } from './position-ids.js';
export { type ProfiledCalls, profileModelCalls } from './profile-calls.js';
