// The public API is deliberate — each subpath of package.json "exports" maps to one file under
// src/api/ that exports exactly these names; the root is their union plus the errors and diagnostics; no internal
// helper leaks. Imported from source through the same mapping the build uses (dist/X.js ← src/X.ts).
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { projectRoot } from '../helpers/shared.js';

const EXPECTED: Record<string, string[]> = {
  validate: [
    'Detector',
    'benchmarkMismatches',
    'describeDocument',
    'locatePointers',
    'parseStrictJson',
    'publishedSchema',
    'validateFile',
    'validatePaths',
    'validateStream',
    'validateValue',
  ],
  formats: [
    'BENCHMARK_FIELD_SET',
    'SAMPLE_HASH_RECIPES',
    'bearersImport',
    'benchOutputType',
    'benchmarkHash',
    'checkInfereval',
    'documentTypes',
    'eeeAggregateType',
    'eeeInstanceType',
    'findType',
    'findVersion',
    'inferevalBenchmarkType',
    'inferevalEvaluationType',
    'loadInfereval',
    'matchingSampleHashRecipe',
    'normaliseBenchmark',
    'normaliseEvaluation',
    'parseInfereval',
    'retrievalEventType',
    'retrievalGoldType',
    'retrievalResultType',
    'sampleHash',
  ],
  migrate: [
    'EEE_CURRENT_VERSION',
    'MIGRATION_TARGETS',
    'migrateEeeAggregate',
    'migrateEeeInstanceRow',
    'migrateLegacyBenchOutput',
    'migratePaths',
  ],
  run: [
    'DEFAULT_MAX_CONSECUTIVE_FAILURES',
    'DEFAULT_MAX_RESPONSE_BYTES',
    'DEFAULT_RETRY',
    'PROVIDERS',
    'ProviderError',
    'createAnthropicProvider',
    'createOpenAIProvider',
    'createProvider',
    'createRedactor',
    'createReplayProvider',
    'journalPathFor',
    'loadBenchmarkForRun',
    'openRunLog',
    'parseCoherence',
    'parseSweepValues',
    'parseVerdict',
    'planPrompts',
    'recordingProvider',
    'redactingProvider',
    'runEvaluation',
    'runSweep',
    'sampleConfigHash',
    'withRetry',
    'writeEeeRun',
  ],
  task: [
    'JUDGE_GENERATION',
    'RUN_COLLECTION',
    'SCORERS',
    'agentMessages',
    'buildMessages',
    'calculate',
    'itemStatistics',
    'loadTask',
    'passAtK',
    'promptText',
    'readDataset',
    'readTaskFile',
    'reduceEpochs',
    'reducedValues',
    'reducerLabel',
    'renderTemplate',
    'rowSampleId',
    'runTask',
    'runToolCall',
    'samplesOf',
    'scorerDefinition',
    'taskConfigKey',
    'taskDigest',
    'taskRecord',
    'templateValues',
  ],
  metrics: [
    'GATE_METRICS',
    'compareRuns',
    'describeBenchmark',
    'fitFactorModel',
    'MersenneTwister',
    'addUncertainty',
    'aggregateJudgeScores',
    'audit',
    'bootstrapPercentile',
    'checkGateMetricNames',
    'cohensKappa',
    'cohensKappaResult',
    'createRng',
    'dispersion',
    'evaluationMetrics',
    'fleissKappa',
    'fleissKappaResult',
    'gateObservations',
    'majorityVote',
    'mean',
    'meanBootstrap',
    'monotonicity',
    'operationalFigures',
    'parseThresholds',
    'quantileType7',
    'renderAudit',
    'renderMetrics',
    'renderMonotonicity',
    'renderRetest',
    'renderStructure',
    'retest',
    'scoreResults',
    'scoreUncertainty',
    'standardDeviation',
    'structure',
    'subsamplingCI',
    'variance',
    'wilsonInterval',
  ],
  report: [
    'buildReportModel',
    'decideVerdict',
    'readRetestEvidence',
    'readSweepEvidence',
    'renderHtml',
    'renderMarkdown',
  ],
};
EXPECTED.convert = [
  'METRIC_FACTS',
  'SOURCES',
  'convertPaths',
  'detectSource',
  'isConvertFailure',
  'metricFacts',
  'sourceById',
  'writeConverted',
];
EXPECTED.store = [
  'STORE_DDL',
  'STORE_SCHEMA_VERSION',
  'builtinBenchmarks',
  'compareModels',
  'disagreements',
  'exportHfEvals',
  'exportParquet',
  'ingestPaths',
  'leaderboards',
  'meanWinRates',
  'openStore',
  'readBenchmarks',
  'readParquetExport',
  'runQuery',
  'storePath',
  'withRecordsStore',
];
EXPECTED.view = ['exportStaticSite', 'isLoopback', 'startViewServer'];
EXPECTED.survey = [
  // survey export and the sidecar
  'EXPORT_TARGETS',
  'exportSurvey',
  'mappingRows',
  'mappingSidecarPath',
  'planSurvey',
  'questionText',
  'readMappingSidecar',
  'writeMappingSidecar',
  // survey import
  'DEFAULT_SURVEYMONKEY_BASE_URL',
  'IMPORT_SOURCES',
  'SurveyMonkeyClient',
  'checkSurveyFrame',
  'importSurvey',
  'mergeRespondents',
  'parseGoogleFormsCsv',
  'parseQualtricsCsv',
  'parseSurveyMonkeyCsv',
  'surveyKey',
  'surveyMonkeyRespondents',
  'verdictFromChoice',
];
/** Areas reachable by their subpath only (the root does not load the store's or the server's modules). */
const SUBPATH_ONLY = ['store', 'view', 'survey', 'task'];
const ROOT_ONLY = ['DataError', 'EvalkitError', 'IoError', 'UsageError', 'formatDiagnosticText'];

/** Internals that must stay private (helpers the CLI and other modules share). */
const INTERNAL = [
  'Engine',
  'readJsonText',
  'readJsonlRows',
  'sampleConfigKey',
  'checkUsage',
  'spliceJson',
  'expandPaths',
  'autoJobs',
  'createAjv',
  'etaHead',
  'neutraliseControls',
  'prepareTreeChecks',
  'writeFileAtomic',
];

const pkg = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8'));
const sourceOf = (target: string): string =>
  join(projectRoot, target.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts'));

test('every subpath in package.json exports exactly its public names', async () => {
  const subpaths = Object.keys(pkg.exports).filter((k) => k !== '.' && k !== './package.json');
  assert.deepEqual(subpaths.map((s) => s.slice(2)).sort(), Object.keys(EXPECTED).sort());
  for (const subpath of subpaths) {
    const area = subpath.slice(2);
    const file = sourceOf(pkg.exports[subpath]);
    assert.ok(existsSync(file), `${subpath} → ${file}`);
    const names = Object.keys(await import(pathToFileURL(file).href)).sort();
    assert.deepEqual(names, [...EXPECTED[area]].sort(), `evalkit/${area}`);
  }
});

test('the root is the union of the areas plus errors and diagnostics, and no internal leaks', async () => {
  assert.equal(pkg.exports['.'], './dist/index.js');
  assert.equal(pkg.main, './dist/index.js');
  const root = await import(pathToFileURL(sourceOf(pkg.exports['.'])).href);
  const areas = Object.keys(EXPECTED).filter((area) => !SUBPATH_ONLY.includes(area));
  const expected = new Set([...areas.flatMap((area) => EXPECTED[area]), ...ROOT_ONLY]);
  assert.deepEqual(Object.keys(root).sort(), [...expected].sort());
  for (const name of INTERNAL) assert.ok(!(name in root), `${name} is internal`);
  assert.ok(
    Object.keys(root).length < 120,
    `${Object.keys(root).length} names (was 333 before a public API)`,
  );
});
