// The README's result-sink example, verbatim except for the import paths (test/docs/readme.test.ts checks that):
// type-checked by `npm run typecheck`; not executed by the tests.

import { BenchmarkSuite, type ResultSink, RunDirectory } from '../../src/benchmarking/index.js';
import { ARParadigm, createModel } from '../../src/models/index.js';

const slowCells: ResultSink = {
  name: 'slow cells', // named in the error logged if a hook throws
  onCell: (cell) => {
    if ((cell.metrics['p99_ms'] ?? 0) > 100) console.warn(`slow: ${cell.task} ${cell.cell}`);
  },
  onEnd: (report, { aborted }) => console.log(`${report.failedCount} failed, aborted: ${aborted}`),
};
const runDir = new RunDirectory('results/tiny'); // results.csv/.json/.jsonl, charts/, report.html
const model = await createModel('tiny', { threads: 1 });
await BenchmarkSuite.throughputOnly().run(new ARParadigm(model.config), model, {
  jsonl: false, // runDir's sinks write results.jsonl
  sinks: [...runDir.sinks(), slowCells],
});
await model.dispose();
const again = RunDirectory.load('results/tiny'); // results.json, else .jsonl (a crashed run), else .csv
console.log(again.summary());
