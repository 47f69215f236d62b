// The README's library quickstart, verbatim except for the import paths (test/docs/readme.test.ts checks that):
// type-checked by `npm run typecheck`; not executed by the tests (it runs the default suite on `small`).

import { BenchmarkSuite } from '../../src/benchmarking/index.js';
import { ModelConfig } from '../../src/index.js';
import { createModel, Paradigm } from '../../src/models/index.js';
import { countFlops } from '../../src/profiling/index.js';
import { Visualizer } from '../../src/visualization/index.js';

const config = ModelConfig.preset('small'); // or ModelConfig.load('model.yaml') (seed snake_case accepted)
console.log(String(countFlops(config, { seqLen: 512, batchSize: 4 }))); // the seed's print(count_flops(...))

const model = await createModel(config, { seed: 0 }); // ONNX Runtime, seeded random weights
const suite = BenchmarkSuite.default({ seq_lens: [128, 256, 512], n_measure: 30 });
const report = await suite.run(Paradigm.for(config), model, {
  saveCsv: 'results.csv',
  writer: process.stderr,
});
console.log(report.summary());
await new Visualizer().render(report.toDataFrame(), { charts: ['throughput', 'latency'], outDir: 'plots' });
await model.dispose();
