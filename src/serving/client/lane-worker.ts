/**
 * The worker thread of one lane of a load point (see `load-lanes.ts`): builds its client, sends its lane's
 * requests with {@link sendLoop}, and answers with what it sent. `abort` from the main thread cancels it.
 *
 * @packageDocumentation
 */
import { parentPort, workerData } from 'node:worker_threads';
import {
  type LaneWorkerData,
  type LaneWorkerResult,
  laneClient,
  laneConcurrency,
  runLane,
} from './load-lanes.js';
import { REAL_CLOCK } from './send-loop.js';

const data = workerData as LaneWorkerData;
const controller = new AbortController();
parentPort?.on('message', (message) => {
  if (message === 'abort') controller.abort();
});
const concurrency = laneConcurrency(data.plan.concurrency, data.lane, data.lanes);
const client = laneClient(data.client, Number.isFinite(concurrency) ? concurrency : 256);
let result: LaneWorkerResult;
try {
  const lane = await runLane(client, data.plan, data.lane, data.lanes, {
    clock: REAL_CLOCK,
    signal: controller.signal,
  });
  result = {
    type: 'done',
    sent: lane.sent,
    ...(lane.stoppedEarly === undefined ? {} : { stoppedEarly: lane.stoppedEarly }),
  };
} catch (error) {
  result = { type: 'error', message: error instanceof Error ? error.message : String(error) };
} finally {
  client.close();
}
parentPort?.postMessage(result);
parentPort?.close();
