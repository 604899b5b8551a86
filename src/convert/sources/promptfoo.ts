/**
 * promptfoo output files (`promptfoo eval -o out.json` and `promptfoo export`, results versions 2 and 3) into
 * EEE 0.3.0: one record per provider and prompt.
 *
 * Results: the test pass rate, the mean test score and the assertion pass rate from promptfoo's own per-prompt
 * summary (`results.prompts[].metrics` in version 3, `results.table.head.prompts[].metrics` in version 2), and
 * each named score as its mean (sum / count). A provider and prompt without a summary in the file get the same
 * figures computed from their test results, and say so. Rows: one per test case under the test pass rate, and one
 * per test case × assertion, naming the named score its assertion feeds, else the assertion pass rate.
 */
import { basename } from 'node:path';
import { createRedactor } from '../../io/net/redact.js';
import { DataError } from '../../errors.js';
import { RecordDriver } from '../driver.js';
import { contentDigest, detailString, epochSeconds, rowMaker, type ModelFacts } from '../record.js';
import { canonicalJson } from '../../io/canonical.js';
import { sampleHash } from '../../formats/eee/sample-hash.js';
import { finite, isObj, readSourceJson, tokenUsage, type Obj } from '../source-json.js';
import type { ConvertOptions, ConvertedRecord, Probe, SourceConverter } from '../types.js';

function detect(probe: Probe): boolean {
  if (probe.isDirectory || probe.head === undefined || !probe.path.endsWith('.json')) return false;
  const head = probe.head;
  // `promptfoo eval -o` / `export` wrap the results in {evalId, results: {version, ...}, config}; the Node API's
  // `evaluate()` output is the results object itself ({version, results: [...], stats, table}).
  return (
    /^\s*\{/.test(head) &&
    (/"results"\s*:\s*\{/.test(head) ||
      (/"results"\s*:\s*\[/.test(head) && /"version"\s*:\s*\d/.test(head))) &&
    /"(promptfooVersion|evalId|gradingResult|namedScores|testIdx|promptIdx|shareableUrl)"\s*:/.test(head)
  );
}

interface Group {
  key: string;
  providerId: string;
  providerLabel?: string;
  promptLabel: string;
  promptId?: string;
  summary?: Obj;
  summaryField?: string;
  results: { r: Obj; index: number }[];
}

function providerOf(value: unknown): { id: string; label?: string } {
  if (typeof value === 'string') return { id: value };
  if (isObj(value)) {
    const id = typeof value.id === 'string' ? value.id : 'unknown';
    const label = typeof value.label === 'string' && value.label !== '' ? value.label : undefined;
    return label ? { id, label } : { id };
  }
  return { id: 'unknown' };
}

const promptLabelOf = (p: Obj): string => String(p.label ?? p.display ?? p.raw ?? 'prompt');

/** Keys whose values are credentials: promptfoo redacts them on export, and a file that did not never has them copied. */
const SECRET_KEY =
  /^(proxy-)?authorization$|cookie$|(^|[-_])(api[-_]?key|apikey|secret|password|passwd|token|credentials?)$/i;
/** camelCase credentials: openaiApiKey, clientSecret, authToken. */
const SECRET_KEY_CAMEL = /[a-z](ApiKey|Secret|Password|Token)$/;
const PROMPTFOO_REDACTED = '[REDACTED]';

/**
 * A copy of a config value with every credential written as promptfoo's own "[REDACTED]" (values already redacted
 * stay so), and URL credentials and API-key-shaped strings anywhere redacted; the fields hidden are listed.
 */
function withoutSecrets(value: unknown, field: string, hidden: string[]): unknown {
  if (typeof value === 'string') {
    const text = createRedactor().text(value);
    if (text !== value) hidden.push(field);
    return text;
  }
  if (Array.isArray(value)) return value.map((v, i) => withoutSecrets(v, `${field}[${i}]`, hidden));
  if (!isObj(value)) return value;
  const out: Obj = {};
  for (const [k, v] of Object.entries(value)) {
    if ((SECRET_KEY.test(k) || SECRET_KEY_CAMEL.test(k)) && typeof v === 'string') {
      if (v !== PROMPTFOO_REDACTED) hidden.push(`${field}.${k}`);
      out[k] = PROMPTFOO_REDACTED;
    } else out[k] = withoutSecrets(v, `${field}.${k}`, hidden);
  }
  return out;
}

/** Early version-2 summaries name no provider but display the prompt as `[provider id] text`: a known id from there. */
function displayedProvider(p: Obj, known: ReadonlySet<string>): string | undefined {
  const m = typeof p.display === 'string' ? /^\[([^\]]+)\] /.exec(p.display) : null;
  return m && known.has(m[1]) ? m[1] : undefined;
}

/** The model a promptfoo provider id names (`openai:gpt-4o`, `openai:chat:gpt-4o`, `python:provider.py`, ...). */
const API = new Set([
  'openai',
  'anthropic',
  'azure',
  'azureopenai',
  'bedrock',
  'vertex',
  'google',
  'mistral',
  'groq',
  'togetherai',
  'openrouter',
  'cohere',
  'deepseek',
  'xai',
  'perplexity',
  'fireworks',
  'replicate',
  'cloudflare-ai',
  'voyage',
]);
/** A prompt summary's fields that become results; the others are kept as details. */
const SUMMARY_SCORE_FIELDS = new Set([
  'score',
  'testPassCount',
  'testFailCount',
  'testErrorCount',
  'assertPassCount',
  'assertFailCount',
  'namedScores',
  'namedScoresCount',
]);

const LOCAL = new Set(['ollama', 'llama', 'localai', 'vllm', 'llamafile', 'transformers']);

function providerModelFacts(id: string, label: string | undefined): ModelFacts {
  const colon = id.indexOf(':');
  const kind = colon === -1 ? id : id.slice(0, colon);
  const details: Obj = { promptfoo_provider: id, ...(label ? { promptfoo_provider_label: label } : {}) };
  if (colon !== -1 && (API.has(kind) || LOCAL.has(kind))) {
    const rest = id
      .slice(colon + 1)
      .replace(/^(chat|completion|messages|embedding|embeddings|responses):/, '');
    const facts: ModelFacts = {
      name: rest,
      sourceString: id,
      field: 'results[].provider.id',
      inferencePlatform: kind,
      details,
      detailsField: '',
    };
    if (API.has(kind)) {
      const closed = kind === 'openai' || kind === 'anthropic' || /^(gpt-|o[134]|claude|gemini)/i.test(rest);
      facts.deployment = {
        deploymentType: 'externally_managed',
        modelAvailability: closed ? 'closed_weights' : 'unknown',
        reason: `promptfoo provider "${kind}" is an API${closed ? ' serving a closed-weights model' : ''}`,
      };
    } else
      facts.deployment = {
        deploymentType: 'self_deployed',
        modelAvailability: 'unknown',
        reason: `promptfoo provider "${kind}" runs the model locally`,
      };
    return facts;
  }
  // A custom provider (python:, file://, exec:, http:, a script): the label, else the script's name.
  const name = label ?? basename(id.replace(/^[a-z]+:(\/\/)?/i, '')).replace(/\.[a-z]+$/i, '');
  return { name: name || id, sourceString: id, field: 'results[].provider.id', details, detailsField: '' };
}

const fraction = (num: number, den: number): number | undefined => (den > 0 ? num / den : undefined);

/**
 * The unit of an assertion-level result (the assertion pass rate, a named score): one row per test × assertion,
 * so n counts assertions; the assertions of one test are not independent, so `compare` clusters them by test.
 */
const ASSERTION_UNIT = { unit: 'assertion', cluster_by: 'test_idx' };

/** Test case fields that are not the test's input (its assertions and how they run). */
const NOT_INPUT = new Set([
  'assert',
  'assertScoringFunction',
  'options',
  'metadata',
  'provider',
  'providerOutput',
]);

/**
 * The text that tells a test's samples apart: the rendered prompt, or, when it is empty (an HTTP or custom
 * provider that builds its request from the test), the test itself as canonical JSON: its index, its vars and its
 * other input fields (description, a `prompt` var-like field, ...). It is `input.raw`, so the sample_hash (taken
 * over input.raw and the reference) differs between tests even when their vars are the same.
 */
function sampleInput(r: Obj, prompt: Obj): { raw: string; fromTest: boolean } {
  if (typeof prompt.raw === 'string' && prompt.raw !== '') return { raw: prompt.raw, fromTest: false };
  const testCase = isObj(r.testCase) ? r.testCase : {};
  const test: Obj = {};
  for (const [k, v] of Object.entries(testCase)) if (!NOT_INPUT.has(k)) test[k] = v;
  if (isObj(r.vars)) test.vars = r.vars;
  if (finite(r.testIdx)) test.test_idx = r.testIdx;
  if (Object.keys(test).length === 0)
    return { raw: typeof prompt.raw === 'string' ? prompt.raw : '', fromTest: false };
  return { raw: canonicalJson(test), fromTest: true };
}

function outputString(response: unknown): string {
  if (!isObj(response)) return '';
  const out = response.output;
  return typeof out === 'string' ? out : out === undefined || out === null ? '' : detailString(out);
}

function usageOf(response: unknown): Obj | undefined {
  if (!isObj(response) || !isObj(response.tokenUsage)) return undefined;
  const u = response.tokenUsage;
  return tokenUsage({
    input: u.prompt,
    output: u.completion,
    total: u.total,
    cacheRead: u.cached,
    reasoning: isObj(u.completionDetails) ? u.completionDetails.reasoning : undefined,
  });
}

async function* convertPromptfoo(path: string, options: ConvertOptions): AsyncGenerator<ConvertedRecord> {
  const { value, text } = await readSourceJson(path);
  // The Node API's output: the results object itself, no wrapper (no eval id, config or metadata).
  const nodeApi = isObj(value) && Array.isArray(value.results) && typeof value.version === 'number';
  if (!isObj(value) || !(nodeApi || isObj(value.results)))
    throw new DataError('convert.promptfoo', `${path}: not a promptfoo output file (no "results" object)`);
  const top: Obj = nodeApi ? {} : value;
  const res = (nodeApi ? value : value.results) as Obj;
  /** Where the results object is in the file, as a field-path prefix. */
  const at = nodeApi ? '' : 'results.';
  const version = res.version;
  if (version !== 2 && version !== 3)
    throw new DataError(
      'convert.promptfoo',
      `${path}: results version ${JSON.stringify(version)} is not supported (expected 2 or 3)`,
    );
  if (!Array.isArray(res.results))
    throw new DataError('convert.promptfoo', `${path}: ${at}results must be a list of test results`);
  const config = isObj(top.config) ? top.config : {};
  const metadata = isObj(top.metadata) ? top.metadata : {};

  // promptfoo ≥ 0.121 names a summary's provider by the label of the results' `{id, label}` provider.
  const resultProviders = new Map<string, { id: string; label?: string }>();
  const providerIds = new Set<string>();
  for (const r of res.results)
    if (isObj(r)) {
      const p = providerOf(r.provider);
      providerIds.add(p.id);
      if (p.label !== undefined && !resultProviders.has(p.label)) resultProviders.set(p.label, p);
    }
  const summaryProvider = (value: unknown): { id: string; label?: string } =>
    typeof value === 'string' && !providerIds.has(value) && resultProviders.has(value)
      ? resultProviders.get(value)!
      : providerOf(value);

  // Summaries: version 3 results.prompts, version 2 results.table.head.prompts.
  const summaries: { p: Obj; field: string }[] = [];
  if (Array.isArray(res.prompts))
    res.prompts.filter(isObj).forEach((p, i) => summaries.push({ p, field: `${at}prompts[${i}]` }));
  else if (isObj(res.table) && isObj(res.table.head) && Array.isArray(res.table.head.prompts))
    res.table.head.prompts
      .filter(isObj)
      .forEach((p, i) => summaries.push({ p, field: `${at}table.head.prompts[${i}]` }));

  const groups = new Map<string, Group>();
  const groupKey = (providerId: string, promptKey: string) => `${providerId}\u0000${promptKey}`;
  for (const { p, field } of summaries) {
    const provider = summaryProvider(p.provider ?? displayedProvider(p, providerIds));
    const promptKey = typeof p.id === 'string' && version === 3 ? p.id : promptLabelOf(p);
    const key = groupKey(provider.id, promptKey);
    if (groups.has(key)) continue;
    groups.set(key, {
      key,
      providerId: provider.id,
      ...(provider.label ? { providerLabel: provider.label } : {}),
      promptLabel: promptLabelOf(p),
      ...(typeof p.id === 'string' ? { promptId: p.id } : {}),
      summary: isObj(p.metrics) ? p.metrics : undefined,
      summaryField: `${field}.metrics`,
      results: [],
    });
  }
  res.results.forEach((r, index) => {
    if (!isObj(r))
      throw new DataError('convert.promptfoo', `${path}: ${at}results[${index}] is not an object`);
    const provider = providerOf(r.provider);
    const prompt = isObj(r.prompt) ? r.prompt : {};
    const promptKey =
      version === 3 && typeof r.promptId === 'string'
        ? r.promptId
        : promptLabelOf({ label: prompt.label, display: prompt.display, raw: prompt.raw });
    const key = groupKey(provider.id, promptKey);
    let g = groups.get(key);
    if (!g) {
      g = {
        key,
        providerId: provider.id,
        ...(provider.label ? { providerLabel: provider.label } : {}),
        promptLabel: promptLabelOf({ label: prompt.label, display: prompt.display, raw: prompt.raw }),
        ...(typeof r.promptId === 'string' ? { promptId: r.promptId } : {}),
        results: [],
      };
      groups.set(key, g);
    }
    g.results.push({ r, index });
  });
  if (groups.size === 0)
    throw new DataError('convert.promptfoo', `${path}: holds no test result and no prompt summary`);

  const description =
    typeof config.description === 'string' && config.description.trim() !== ''
      ? config.description.trim()
      : undefined;
  const evaluationName = description ?? basename(path).replace(/\.json$/, '');
  const evalId = typeof top.evalId === 'string' ? top.evalId : undefined;
  const timestamp = epochSeconds(res.timestamp) ?? epochSeconds(metadata.evaluationCreatedAt);
  const configTests = Array.isArray(config.tests) ? config.tests : undefined;
  const sortedGroups = [...groups.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const promptsPerProvider = new Map<string, number>();
  for (const g of sortedGroups)
    promptsPerProvider.set(g.providerId, (promptsPerProvider.get(g.providerId) ?? 0) + 1);

  for (const g of sortedGroups) {
    const d = new RecordDriver('promptfoo', path, options);
    const { report, notes } = d;
    const model = d.model(providerModelFacts(g.providerId, g.providerLabel));
    const sourceData: Obj = {
      dataset_name: evaluationName,
      source_type: 'other',
      additional_details: {
        prompt: g.promptLabel,
        ...(g.promptId ? { prompt_id: g.promptId } : {}),
        ...(configTests ? { tests: String(configTests.length) } : {}),
      },
    };
    const results = d.results;
    const base = {
      evaluationName,
      sourceData,
      ...(description ? { description } : {}),
      ...(timestamp ? { evaluationTimestamp: timestamp } : {}),
    };

    // Summary figures: from promptfoo's summary, else computed from the results of this provider and prompt.
    const s = g.summary;
    const rows = g.results.map((x) => x.r);
    const computed = !s;
    const counts = s
      ? {
          pass: finite(s.testPassCount) ? s.testPassCount : 0,
          fail: finite(s.testFailCount) ? s.testFailCount : 0,
          error: finite(s.testErrorCount) ? s.testErrorCount : 0,
          scoreSum: finite(s.score) ? s.score : undefined,
          assertPass: finite(s.assertPassCount) ? s.assertPassCount : undefined,
          assertFail: finite(s.assertFailCount) ? s.assertFailCount : undefined,
        }
      : (() => {
          let pass = 0;
          let fail = 0;
          let error = 0;
          let scoreSum = 0;
          let assertPass = 0;
          let assertFail = 0;
          for (const r of rows) {
            if (r.success === true) pass++;
            else if (r.failureReason === 2) error++;
            else fail++;
            if (finite(r.score)) scoreSum += r.score;
            const comps =
              isObj(r.gradingResult) && Array.isArray(r.gradingResult.componentResults)
                ? r.gradingResult.componentResults.filter(isObj)
                : [];
            for (const c of comps) c.pass === true ? assertPass++ : assertFail++;
          }
          return { pass, fail, error, scoreSum, assertPass, assertFail };
        })();
    const field = (name: string) =>
      s ? `${g.summaryField}.${name}` : `${at}results[] (${name} computed by evalkit)`;
    const computedDetails = computed
      ? {
          computed_by: 'evalkit',
          computation: `from the ${rows.length} test result(s) in the file: it holds no summary for this provider and prompt`,
        }
      : {};
    if (computed)
      notes.push(
        `${g.providerId} / ${g.promptLabel}: no promptfoo summary in the file; pass rates and scores computed from its ${rows.length} test result(s)`,
      );
    const tests = counts.pass + counts.fail + counts.error;
    // Every test errored (e.g. rate limits): nothing ran to a verdict. No pass rate of 0, no mean score, no row says
    // a test failed: a run with errors, its messages kept.
    const allErrored = counts.error > 0 && counts.pass + counts.fail === 0;
    if (allErrored) {
      const messages = new Map<string, number>();
      for (const r of rows) {
        const m = typeof r.error === 'string' ? r.error : 'error';
        messages.set(m, (messages.get(m) ?? 0) + 1);
      }
      const top = [...messages].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0];
      notes.push(
        `${g.providerId} / ${g.promptLabel}: every test errored (${counts.error}${top ? `; e.g. "${top[0].slice(0, 200)}"` : ''}): a run with errors, nothing was scored (no result, no row)`,
      );
      report.notMapped(
        field('testErrorCount'),
        `every test errored (${counts.error}): no pass rate or score is written, an errored test is not a failed one`,
      );
    }
    const passRate = allErrored ? undefined : fraction(counts.pass, tests);
    if (passRate !== undefined)
      results.add({
        ...base,
        metric: 'pass_rate',
        metricId: 'promptfoo.test_pass_rate',
        metricName: 'test pass rate',
        resultId: 'test_pass_rate',
        field: field('testPassCount'),
        score: passRate,
        numSamples: tests,
        details: {
          ...computedDetails,
          test_pass_count: counts.pass,
          test_fail_count: counts.fail,
          test_error_count: counts.error,
        },
        declared: s
          ? {
              n: tests,
              nFrom: `${g.summaryField}.testPassCount + testFailCount + testErrorCount`,
              headline: 'pass_rate',
            }
          : { headlineWhy: 'the file holds no promptfoo summary (computed by evalkit)' },
      });
    if (counts.scoreSum !== undefined && tests > 0 && !allErrored)
      results.add({
        ...base,
        metric: 'score',
        metricId: 'promptfoo.mean_score',
        metricName: 'mean test score',
        resultId: 'mean_score',
        field: field('score'),
        score: counts.scoreSum / tests,
        numSamples: tests,
        details: { ...computedDetails, score_sum: counts.scoreSum },
        declared: { headlineWhy: "promptfoo's score sums the tests' scores; the rows hold each assertion's" },
      });
    const assertTotal = (counts.assertPass ?? 0) + (counts.assertFail ?? 0);
    if (counts.assertPass !== undefined && assertTotal > 0)
      results.add({
        ...base,
        metric: 'pass_rate',
        metricId: 'promptfoo.assertion_pass_rate',
        metricName: 'assertion pass rate',
        resultId: 'assertion_pass_rate',
        field: field('assertPassCount'),
        score: counts.assertPass / assertTotal,
        numSamples: assertTotal,
        configDetails: ASSERTION_UNIT,
        details: {
          ...computedDetails,
          assert_pass_count: counts.assertPass,
          assert_fail_count: counts.assertFail ?? 0,
        },
        declared: s
          ? {
              n: assertTotal,
              nFrom: `${g.summaryField}.assertPassCount + assertFailCount`,
              headline: 'pass_rate',
            }
          : { headlineWhy: 'the file holds no promptfoo summary (computed by evalkit)' },
      });
    // Named scores: mean = sum / count.
    const named = new Map<string, { sum: number; count: number; field: string }>();
    if (s && isObj(s.namedScores)) {
      const countsOf = isObj(s.namedScoresCount) ? s.namedScoresCount : {};
      for (const [name, sum] of Object.entries(s.namedScores))
        if (finite(sum))
          named.set(name, {
            sum,
            count: finite(countsOf[name]) ? countsOf[name] : tests,
            field: `${g.summaryField}.namedScores.${name}`,
          });
    } else if (!s) {
      for (const r of rows)
        if (isObj(r.namedScores))
          for (const [name, v] of Object.entries(r.namedScores))
            if (finite(v)) {
              const e = named.get(name) ?? {
                sum: 0,
                count: 0,
                field: `${at}results[].namedScores.${name} (computed by evalkit)`,
              };
              e.sum += v;
              e.count++;
              named.set(name, e);
            }
    }
    for (const [name, e] of [...named.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))) {
      if (e.count <= 0) continue;
      results.add({
        ...base,
        metric: name,
        metricId: `promptfoo.named.${name}`,
        metricName: name,
        resultId: `named/${name}`,
        field: e.field,
        score: e.sum / e.count,
        numSamples: e.count,
        configDetails: ASSERTION_UNIT,
        details: { ...computedDetails, sum: e.sum, count: e.count },
        declared: { headlineWhy: "promptfoo's named score is a sum over tests, not a mean of the rows" },
      });
    }
    if (s) {
      for (const k of Object.keys(s))
        if (!SUMMARY_SCORE_FIELDS.has(k))
          report.details(`${g.summaryField}.${k}`, `/source_metadata/additional_details/summary.${k}`);
    }
    if (results.results.length === 0 && !allErrored)
      throw new DataError(
        'convert.promptfoo',
        `${path}: ${g.providerId} / ${g.promptLabel}: no test result and no summary figure`,
      );
    const resultIds = new Set(results.results.map((r) => r.evaluation_result_id as string));

    const multiPrompt = (promptsPerProvider.get(g.providerId) ?? 1) > 1;
    const digest = evalId ? contentDigest(`promptfoo-eval:${evalId}`) : contentDigest(text);
    const ids = d.ids({ digest, discriminator: g.key, defaultCollection: evaluationName.slice(0, 60) });
    // One eval holds a record per provider and prompt: the run id names both.
    d.run({
      sourceRunId: `${evalId ?? `sha256:${contentDigest(text)}`}/${g.key.replace('\u0000', '/')}`,
      status: 'complete',
      scoredSamples: allErrored ? 0 : rows.length,
    });
    const makeRow = rowMaker(ids.evaluationId, model.id);
    const hasRows = rows.length > 0 && !allErrored;
    report.mapped(`${at}results[]`, '/evaluation (one row per test, under the test pass rate)');
    report.mapped(`${at}results[].gradingResult.componentResults`, '/evaluation (one row per assertion)');
    report.mapped(`${at}results[].response.output`, '/output/raw');
    report.mapped(`${at}results[].vars`, '/metadata/var.*');

    async function* rowsOf(): AsyncGenerator<Obj> {
      const used = new Set<string>();
      // Per result: each sample_hash's test; a hash two tests share makes the store pair the result by sample_id.
      const testOfHash = new Map<string, Map<string, string>>();
      const collisions = new Map<string, number>();
      let fromTest = 0;
      for (const { r, index } of g.results) {
        const prompt = isObj(r.prompt) ? r.prompt : {};
        const input = sampleInput(r, prompt);
        if (input.fromTest) fromTest++;
        const testCase = isObj(r.testCase) ? r.testCase : {};
        const baseId = finite(r.testIdx) ? `test${r.testIdx}` : `result${index}`;
        const common: Obj = {
          ...(typeof r.id === 'string' ? { promptfoo_result_id: r.id } : {}),
          ...(finite(r.testIdx) ? { test_idx: r.testIdx } : {}),
          ...(finite(r.promptIdx) ? { prompt_idx: r.promptIdx } : {}),
          ...(typeof testCase.description === 'string' ? { test_description: testCase.description } : {}),
          test_success: r.success,
          ...(finite(r.score) ? { test_score: r.score } : {}),
          ...(finite(r.cost) ? { cost: r.cost } : {}),
          ...(finite(r.failureReason)
            ? {
                failure_reason:
                  r.failureReason === 2 ? 'error' : r.failureReason === 1 ? 'assert' : r.failureReason,
              }
            : {}),
          ...(isObj(r.response) && r.response.cached === true ? { cached: true } : {}),
        };
        if (isObj(r.vars)) for (const [k, v] of Object.entries(r.vars)) common[`var.${k}`] = v;
        const output = outputString(r.response);
        const usage = usageOf(r.response);
        const error =
          r.failureReason === 2 && typeof r.error === 'string'
            ? r.error
            : isObj(r.response) && typeof r.response.error === 'string'
              ? r.response.error
              : undefined;
        const comps =
          isObj(r.gradingResult) && Array.isArray(r.gradingResult.componentResults)
            ? r.gradingResult.componentResults.filter(isObj)
            : [];
        const units: {
          score: number;
          pass: boolean;
          resultId: string;
          reference: string[];
          meta: Obj;
          suffix: string;
        }[] = comps.map((c, k) => {
          const a = isObj(c.assertion) ? c.assertion : {};
          const metric = typeof a.metric === 'string' ? a.metric : undefined;
          const resultId =
            metric && resultIds.has(`named/${metric}`)
              ? `named/${metric}`
              : resultIds.has('assertion_pass_rate')
                ? 'assertion_pass_rate'
                : [...resultIds][0];
          const meta: Obj = { assertion_type: a.type, assertion_index: k };
          if (a.value !== undefined) meta.assertion_value = a.value;
          for (const key of ['threshold', 'weight', 'metric', 'provider'] as const)
            if (a[key] !== undefined) meta[`assertion_${key}`] = a[key];
          if (typeof c.reason === 'string') meta.reason = c.reason;
          return {
            score: finite(c.score) ? c.score : c.pass === true ? 1 : 0,
            pass: c.pass === true,
            resultId,
            reference:
              typeof a.value === 'string' ? [a.value] : a.value === undefined ? [] : [detailString(a.value)],
            meta,
            suffix: `#a${k}`,
          };
        });
        // The test itself is a row of the test pass rate (beside its assertions' rows), so that the result's rows
        // are its tests; a test without assertions has only that row.
        if (units.length === 0 || resultIds.has('test_pass_rate'))
          units.unshift({
            score: finite(r.score) ? r.score : r.success === true ? 1 : 0,
            pass: r.success === true,
            resultId: resultIds.has('test_pass_rate') ? 'test_pass_rate' : [...resultIds][0],
            reference: [],
            meta: {},
            suffix: '',
          });
        for (const u of units) {
          let sampleId = `${baseId}${u.suffix}`;
          for (let n = 2; used.has(sampleId); n++) sampleId = `${baseId}${u.suffix}#${n}`;
          used.add(sampleId);
          const hash = sampleHash({ raw: input.raw, reference: u.reference });
          const seen = testOfHash.get(u.resultId) ?? new Map<string, string>();
          testOfHash.set(u.resultId, seen);
          const sampleKey = `${baseId}${u.suffix}`;
          if (seen.has(hash) && seen.get(hash) !== sampleKey)
            collisions.set(u.resultId, (collisions.get(u.resultId) ?? 0) + 1);
          else seen.set(hash, sampleKey);
          yield makeRow({
            evaluationName,
            evaluationResultId: u.resultId,
            sampleId,
            input: { raw: input.raw, reference: u.reference },
            output: { raw: [output] },
            evaluation: { score: u.score, is_correct: u.pass },
            ...(usage ? { tokenUsage: usage } : {}),
            ...(finite(r.latencyMs) && r.latencyMs >= 0 ? { performance: { latency_ms: r.latencyMs } } : {}),
            ...(error !== undefined ? { error } : {}),
            metadata: { ...common, ...u.meta },
          });
        }
      }
      if (fromTest > 0)
        report.inferred(
          `${at}results[].testCase`,
          '/input/raw',
          `${fromTest} result(s) with an empty rendered prompt: the test (its index, vars and input fields, as canonical JSON) is the input, so each test is a sample of its own`,
        );
      for (const [resultId, n] of collisions)
        notes.push(
          `warning: ${n} row(s) of ${resultId} share their sample_hash with another test's (the same input and reference): the store pairs this result by sample_id, never as epochs of one sample`,
        );
    }

    const sourceDetails: Obj = {
      results_version: version,
      ...(evalId ? { eval_id: evalId } : {}),
      provider: g.providerId,
      prompt: g.promptLabel,
      ...(multiPrompt ? { provider_prompts: promptsPerProvider.get(g.providerId) } : {}),
    };
    if (s)
      for (const [k, v] of Object.entries(s))
        if (!SUMMARY_SCORE_FIELDS.has(k)) sourceDetails[`summary.${k}`] = v;
    if (isObj(res.stats)) sourceDetails['file_stats'] = res.stats;
    if (typeof top.shareableUrl === 'string') sourceDetails.shareable_url = top.shareableUrl;
    const libraryDetails: Obj = {};
    const hidden: string[] = [];
    for (const [k, v] of Object.entries(config))
      if (k !== 'tests') libraryDetails[`config.${k}`] = withoutSecrets(v, `config.${k}`, hidden);
    for (const field of hidden)
      report.notMapped(
        field,
        'a credential (header, key, token, cookie): written as [REDACTED], never copied',
      );
    if (configTests)
      report.notMapped('config.tests', 'each test is on its rows: vars, description and assertions');
    for (const [k, v] of Object.entries(metadata))
      if (k !== 'promptfooVersion') libraryDetails[`metadata.${k}`] = v;
    for (const k of Object.keys(top))
      if (!['evalId', 'results', 'config', 'shareableUrl', 'metadata'].includes(k))
        report.notMapped(k, 'not a promptfoo output field');
    if (isObj(res.table))
      report.notMapped(`${at}table`, 'the table repeats the test results (its prompt summaries are read)');
    const retrieved = epochSeconds(metadata.exportedAt) ?? timestamp;
    const aggregate = d.aggregate({
      sourceName: `promptfoo ${nodeApi ? 'Node API evaluate() output' : metadata.exportedAt ? 'export' : 'eval output'} (results version ${String(version)})`,
      sourceDetails,
      evalLibrary: {
        name: 'promptfoo',
        version: typeof metadata.promptfooVersion === 'string' ? metadata.promptfooVersion : 'unknown',
        details: libraryDetails,
      },
      ...(retrieved
        ? {
            retrievedTimestamp: {
              value: retrieved,
              field: metadata.exportedAt ? 'metadata.exportedAt' : `${at}timestamp`,
            },
          }
        : {}),
      ...(timestamp ? { evaluationTimestamp: { value: timestamp, field: `${at}timestamp` } } : {}),
      hasRows,
    });
    yield d.record({ aggregate, ...(hasRows ? { rows: rowsOf } : {}) });
  }
}

export const promptfooSource: SourceConverter = {
  id: 'promptfoo',
  description: 'promptfoo output (promptfoo eval -o / promptfoo export, results versions 2 and 3)',
  detect,
  convert: convertPromptfoo,
};
