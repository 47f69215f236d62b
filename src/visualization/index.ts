/**
 * `dantinox/visualization`: charts from plain benchmark data. A {@link Chart} turns rows into a Vega-Lite spec
 * (Vega for the radar); {@link Visualizer} renders registered charts to SVG, PNG (resvg, bundled DejaVu Sans),
 * spec JSON and a self-contained interactive HTML report. Charts never import the benchmark suite: feed them
 * rows, an arquero table, or a CSV/JSON/JSONL path.
 *
 * @example
 * ```ts
 * import { Visualizer } from 'dantinox/visualization';
 * const results = await new Visualizer().render('results/bench.csv', { outDir: 'plots', formats: ['svg', 'png', 'html'] });
 * ```
 *
 * @packageDocumentation
 * @module dantinox/visualization
 */
export {
  Chart,
  type ChartAccepts,
  type ChartClass,
  type ChartParam,
  type ChartSpec,
  type ColumnRequirement,
  checkRequirements,
  isVegaLiteSpec,
  VEGA_LITE_SCHEMA,
  VEGA_SCHEMA,
} from './chart.js';
export {
  type ChartData,
  type ChartInput,
  type ChartRow,
  type ColumnPattern,
  columnNames,
  isEmptyCell,
  loadChartInput,
  numericCell,
  type RowTable,
  readChartData,
  textCell,
  toRows,
} from './chart-data.js';
export {
  type AnyChartClass,
  type BuiltinChartName,
  type BuiltinChartOptionsMap,
  builtinCharts,
  type ChartInfo,
  ChartRegistry,
  type CreateChartRegistryOptions,
  createChartRegistry,
  type RegisterChartOptions,
} from './chart-registry.js';
export { CompareChart, type CompareChartOptions } from './charts/compare-chart.js';
export {
  DEPTH_TPS_PATTERN,
  DepthChart,
  type DepthChartOptions,
  type DepthPoint,
  type DepthPointKind,
  depthPoints,
} from './charts/depth-chart.js';
export { LatencyChart, type LatencyChartOptions, type LatencyPhase } from './charts/latency-chart.js';
export {
  OPERATOR_ROW_TASK,
  type OperatorPoint,
  type OperatorPoints,
  OperatorRooflineChart,
  type OperatorRooflineChartOptions,
  operatorPoints,
} from './charts/operator-roofline-chart.js';
export { ParetoChart, type ParetoChartOptions } from './charts/pareto-chart.js';
export { ParityChart } from './charts/parity-chart.js';
export { DEFAULT_RADAR_METRICS, RadarChart, type RadarChartOptions } from './charts/radar-chart.js';
export { RooflineChart, type RooflineChartOptions } from './charts/roofline-chart.js';
export {
  ServingDistributionChart,
  type ServingDistributionChartOptions,
  type ServingSamplePoint,
  servingSamplePoints,
} from './charts/serving-distribution-chart.js';
export {
  ServingLatencyChart,
  type ServingLatencyChartOptions,
  type ServingLatencyPoint,
  servingLatencyPoints,
} from './charts/serving-latency-chart.js';
export {
  type LoadAxis,
  loadAxis,
  SERVING_POINT_TASK,
  SERVING_SAMPLE_TASK,
  SERVING_TIMELINE_TASK,
  TIMELINE_PARTS,
  type TimelinePart,
} from './charts/serving-rows.js';
export {
  ServingThroughputChart,
  type ServingThroughputChartOptions,
  type ServingThroughputPoint,
  servingThroughputPoints,
} from './charts/serving-throughput-chart.js';
export {
  ServingTimelineChart,
  type ServingTimelineChartOptions,
  type TimelineSegment,
  thinningText,
  timelineSegments,
} from './charts/serving-timeline-chart.js';
export {
  ThroughputBatchChart,
  type ThroughputBatchChartOptions,
  TPS_BATCH_PATTERN,
} from './charts/throughput-batch-chart.js';
export { ThroughputChart, type ThroughputChartOptions, TPS_SEQ_PATTERN } from './charts/throughput-chart.js';
export { TrainingCurveChart, type TrainingCurveChartOptions } from './charts/training-curve-chart.js';
export { TrendChart, type TrendChartOptions } from './charts/trend-chart.js';
export {
  COMPARISON_GROUPS,
  type ComparisonColumn,
  type ComparisonGroup,
  type ComparisonValueFormat,
  comparisonTableHtml,
  formatComparisonValue,
} from './comparison-table.js';
export {
  buildHtmlReport,
  chartRowsOf,
  combineRuns,
  type HtmlReportInput,
  type ReportChart,
  type ReportRun,
} from './html-report.js';
export {
  boxesOverlap,
  estimateTextWidth,
  LABEL_CORNERS,
  type LabelBox,
  type LabelCorner,
  type LabelledPoint,
  type LabelTextMark,
  labelBox,
  labelTextMark,
  type PlaceLabelsOptions,
  placeLabels,
  placeLabelsWithoutOverlap,
} from './label-placement.js';
export {
  isLowerBetter,
  LOWER_IS_BETTER_PATTERNS,
  type MetricDirectionOptions,
  metricShortLabel,
  metricTitle,
} from './metric-labels.js';
export {
  type Direction,
  dominates,
  type ParetoDirections,
  type ParetoPoint,
  paretoFrontier,
} from './pareto-frontier.js';
export {
  defaultFontFiles,
  PNG_FONT_FAMILY,
  type RasterImage,
  rasterizeSvg,
  type SvgToPngOptions,
  svgToPng,
} from './png.js';
export { normalizeMetric } from './radar-normalize.js';
export { type RenderSvgOptions, renderSvg, toVegaSpec } from './render.js';
export {
  DEFAULT_HEIGHT,
  DEFAULT_SCALE,
  DEFAULT_WIDTH,
  type RenderConfig,
  type ResolvedRenderConfig,
  resolveRenderConfig,
} from './render-config.js';
export {
  type CollapseOptions,
  collapseByModel,
  DEFAULT_SERIES_LABEL,
  type ModelRecord,
  SERIES_COLUMNS,
  type SeriesLabeler,
  seriesLabeler,
} from './series.js';
export { PARITY_COLUMNS, withTargetParity } from './target-parity.js';
export { FONT_FAMILY, PALETTES, THEME_NAMES, type ThemeName, vegaLiteTheme, vegaTheme } from './theme.js';
export {
  CHART_FORMATS,
  type ChartFormat,
  type ChartRenderResult,
  type ChartSelection,
  defaultRunName,
  type RenderResults,
  Visualizer,
  type VisualizerOptions,
  type VisualizerRenderOptions,
  type VisualizerReportOptions,
} from './visualizer.js';
