import { Option } from 'commander';
import type { Diagnostic } from '../../diagnostics.js';
import { formatDiagnosticText } from '../../diagnostics.js';
import { UsageError } from '../../errors.js';
import { findType } from '../../formats/registry.js';
import { writeFileAtomic } from '../../io/atomic.js';
import { checkOutputs } from '../../io/preflight.js';
import { meanBootstrap } from '../../metrics/eee/uncertainty.js';
import {
  GATE_METRICS,
  gateObservations,
  parseGateThresholds,
  type GateOptions,
} from '../../metrics/retrieval/gate.js';
import { operationalFigures, type Observation } from '../../metrics/retrieval/operational.js';
import { scoreResults, type Located } from '../../metrics/retrieval/score.js';
import { parseThresholds, type ThresholdConfig } from '../../metrics/retrieval/thresholds.js';
import { readJsonDocument, readJsonlRows } from '../../report/read-input.js';
import { createAjv } from '../../validate/ajv.js';
import type { CliIO, CommandModule } from '../context.js';
import { alignedColumns } from '../../report/tables.js';
import { addDbOption, dbPathOf, json, optionalInteger, resolvePath } from '../options.js';

/** Rows that pass the type's 0.1 schema; the others become diagnostics (file:line, pointer, schema keyword). */
function schemaCheck(
  typeId: string,
  rows: Located<unknown>[],
  file: string,
  diagnostics: Diagnostic[],
): Located<unknown>[] {
  const type = findType(typeId);
  const version = type?.versions.find((v) => v.version === '0.1');
  if (!version) return rows;
  const validate = createAjv(version.dialect).compile(version.schema);
  return rows.filter(({ value, line }) => {
    if (validate(value)) {
      const [issue] = (version.rules ?? []).flatMap((rule) => rule.check(value));
      if (!issue) return true;
      diagnostics.push({
        file,
        line,
        column: 1,
        pointer: issue.pointer,
        severity: 'error',
        code: issue.code,
        message: issue.message,
        type: typeId,
        schema_version: '0.1',
      });
      return false;
    }
    const e = validate.errors?.[0];
    diagnostics.push({
      file,
      line,
      column: 1,
      pointer: e?.instancePath ?? '',
      severity: 'error',
      code: `schema.${e?.keyword ?? 'invalid'}`,
      message: `not a valid ${typeId} 0.1 row: ${e?.message ?? 'invalid'}`,
      type: typeId,
      schema_version: '0.1',
    });
    return false;
  });
}

function parseKs(text: string): number[] {
  const ks = text.split(',').map((s) => s.trim());
  if (ks.length === 0 || ks.some((k) => !/^[1-9]\d*$/.test(k))) {
    throw new UsageError(
      'usage.bad-option',
      `--k expects positive integers separated by commas, got "${text}"`,
    );
  }
  return ks.map(Number);
}

/** A latency for people: at most one decimal (2227.1049999999996 → 2227.1 ms), '-' when there is none. */
const ms = (value: number | undefined): string =>
  value === undefined ? '-' : `${Number(value.toFixed(1))} ms`;

async function readThresholds(io: CliIO, path: string | undefined): Promise<ThresholdConfig | undefined> {
  if (!path) return undefined;
  return parseThresholds(await readJsonDocument(resolvePath(io.cwd, path)), path);
}

/** The thresholds of a gate (`retrieval gate` and `retrieval serve` alike): a metric no gate knows is refused. */
async function readGateThresholds(io: CliIO, path: string): Promise<ThresholdConfig> {
  return parseGateThresholds(await readJsonDocument(resolvePath(io.cwd, path)), path);
}

async function readObservations(
  io: CliIO,
  path: string,
  diagnostics: Diagnostic[],
): Promise<{ observations: Observation[]; other: number }> {
  const rows = schemaCheck(
    'retrieval.event',
    await readJsonlRows(resolvePath(io.cwd, path), { expect: ['retrieval.event'] }),
    path,
    diagnostics,
  );
  const observations: Observation[] = [];
  let other = 0;
  for (const { value } of rows) {
    if ((value as { type?: string }).type === 'evaluation_observation')
      observations.push(value as Observation);
    else other++;
  }
  return { observations, other };
}

const toJsonl = (rows: readonly unknown[]) =>
  rows.map((r) => JSON.stringify(r)).join('\n') + (rows.length ? '\n' : '');

function printDiagnostics(io: CliIO, diagnostics: readonly Diagnostic[], limit = 50): void {
  for (const d of diagnostics.slice(0, limit)) io.stderr.write(`${formatDiagnosticText(d)}\n`);
  if (diagnostics.length > limit)
    io.stderr.write(`… and ${diagnostics.length - limit} more (use --format json)\n`);
}

interface ScoreFlags {
  gold: string;
  results: string;
  k: string;
  thresholds?: string;
  events?: string;
  entityMatch: 'exact' | 'casefold';
  output?: string;
  iterations: string;
  seed: string;
  format: 'text' | 'json';
}

interface ServeFlags {
  db?: string;
  host: string;
  port: string;
  token?: string;
  thresholds?: string;
  policy?: string;
  window: string;
  gateInterval: string;
  groupBy: string;
  maxBodyBytes: string;
  maxSkew: string;
  allowHost?: string[];
  drain: string;
  format: 'text' | 'json';
}

const collect = (value: string, previous: string[] | undefined): string[] => [...(previous ?? []), value];

function positiveNumber(text: string, flag: string): number {
  const n = Number(text);
  if (!/^\s*\d+(\.\d+)?\s*$/.test(text) || !Number.isFinite(n) || n <= 0)
    throw new UsageError('usage.bad-option', `${flag} expects a positive number, got "${text}"`);
  return n;
}

/** Resolves when the process is asked to stop (Ctrl-C, SIGTERM, SIGHUP). */
function untilStopped(): Promise<void> {
  return new Promise((resolve) => {
    const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
    const stop = () => {
      for (const s of signals) process.off(s, stop);
      resolve();
    };
    for (const s of signals) process.on(s, stop);
  });
}

interface GateFlags {
  events: string;
  thresholds: string;
  groupBy?: GateOptions['groupBy'];
  output?: string;
  format: 'text' | 'json';
}

const formatOption = () =>
  new Option('-f, --format <format>', 'summary as text for people or json for machines')
    .choices(['text', 'json'])
    .default('text');

export const retrievalCommand: CommandModule = {
  register(program, io, run) {
    const retrieval = program
      .command('retrieval')
      .summary(
        'score retrieval results against gold rows, and gate observations on thresholds (Mnemoverse 0.1)',
      )
      .description(
        'Retrieval evaluation (Mnemoverse eval 0.1): `score` fills result rows, `gate` checks observations.',
      );

    retrieval
      .command('score')
      .summary('fill result rows with p@K, recall@K, nDCG@K, MRR@K, cov_entities, latency and verdicts')
      .description(
        'Score each result row against its gold row (matched by id): p@K, recall@K, nDCG@K, MRR@K for every K, ' +
          'cov_entities (share of the gold entities among the retrieved ids), and with --events the per-request ' +
          'p50_ms, p95_ms and errors of its observations; then verdicts against --thresholds. Writes rows valid ' +
          'against retrieval.result 0.1 (-o) and prints the mean of each metric with a seeded bootstrap CI. ' +
          'Unknown ids and duplicate gold ids are errors; gold rows without results, duplicate result ids and ' +
          'undefined metrics (no expected ids) are warnings.\n\n' +
          'Exit codes: 0 scored, 1 data errors (invalid rows, unknown or duplicate ids), 2 usage or I/O error.',
      )
      .requiredOption('--gold <file>', 'gold rows (JSONL: id, query, expected_ids, layers, entities?)')
      .requiredOption('--results <file>', 'result rows (JSONL: id, request_id, metrics, retrieved_ids)')
      .option('--k <list>', 'cut-offs K, comma-separated', '5,10')
      .option(
        '--thresholds <file>',
        'threshold set (JSON {"thresholds": {metric: number | {threshold, direction}}})',
      )
      .option(
        '--events <file>',
        'evaluation_observation events (JSONL) joined by request_id for latency/errors',
      )
      .addOption(
        new Option('--entity-match <mode>', 'how gold entities match retrieved ids')
          .choices(['exact', 'casefold'])
          .default('exact'),
      )
      .option('-o, --output <file>', 'write the scored result rows here (JSONL, atomically)')
      .option('--iterations <n>', 'bootstrap resamples for the CIs of the means', '1000')
      .option('--seed <n>', 'bootstrap seed', '0')
      .addOption(formatOption())
      .action((flags: ScoreFlags) =>
        run(async () => {
          checkOutputs({
            inputs: [flags.gold, flags.results, flags.events, flags.thresholds],
            files: [flags.output],
            cwd: io.cwd,
          });
          const ks = parseKs(flags.k);
          const iterations = optionalInteger(flags.iterations, '--iterations', 1)!;
          const seed = optionalInteger(flags.seed, '--seed', 0)!;
          const diagnostics: Diagnostic[] = [];
          const thresholds = await readThresholds(io, flags.thresholds);
          const gold = schemaCheck(
            'retrieval.gold',
            await readJsonlRows(resolvePath(io.cwd, flags.gold), { expect: ['retrieval.gold'] }),
            flags.gold,
            diagnostics,
          );
          const results = schemaCheck(
            'retrieval.result',
            await readJsonlRows(resolvePath(io.cwd, flags.results), { expect: ['retrieval.result'] }),
            flags.results,
            diagnostics,
          );
          const observations = flags.events
            ? (await readObservations(io, flags.events, diagnostics)).observations
            : undefined;
          const outcome = scoreResults(gold, results, {
            ks,
            thresholds: thresholds?.thresholds,
            entityMatch: flags.entityMatch,
            observations,
            goldFile: flags.gold,
            resultsFile: flags.results,
          });
          diagnostics.push(...outcome.diagnostics);
          if (flags.output) await writeFileAtomic(resolvePath(io.cwd, flags.output), toJsonl(outcome.rows));

          const metrics = outcome.metricNames.map((name) => {
            const values: number[] = [];
            for (const row of outcome.rows) {
              const v = row.metrics?.[name];
              if (typeof v === 'number' && Number.isFinite(v)) values.push(v);
            }
            if (values.length === 0) return { metric: name, n: 0, mean: null, ci: null };
            const boot = meanBootstrap(values, { iterations, seed });
            return {
              metric: name,
              n: values.length,
              mean: values.reduce((a, b) => a + b, 0) / values.length,
              ci: {
                lower: boot.lower,
                upper: boot.upper,
                confidence_level: 0.95,
                method: 'percentile_bootstrap',
                iterations,
                seed,
              },
            };
          });
          const verdicts = new Map<string, { pass: number; fail: number }>();
          for (const row of outcome.rows) {
            for (const v of row.verdicts ?? []) {
              const c = verdicts.get(v.metric) ?? { pass: 0, fail: 0 };
              if (v.pass) c.pass++;
              else c.fail++;
              verdicts.set(v.metric, c);
            }
          }
          const operational = observations
            ? operationalFigures(observations, { softDeadlineMs: thresholds?.softDeadlineMs })
            : undefined;
          const errors = diagnostics.filter((d) => d.severity === 'error').length;
          const summary = {
            rows: outcome.rows.length,
            scored: outcome.scored,
            metrics,
            verdicts: Object.fromEntries(verdicts),
            ...(operational ? { operational } : {}),
            errors,
            warnings: diagnostics.length - errors,
            diagnostics,
            ...(flags.output ? { output: flags.output } : {}),
          };
          if (flags.format === 'json') io.stdout.write(json(summary));
          else {
            printDiagnostics(io, diagnostics);
            io.stdout.write(`scored ${outcome.scored} of ${outcome.rows.length} result rows\n`);
            const table = [
              ['metric', 'n', 'mean', '95% CI (bootstrap)'],
              ...metrics.map((m) => [
                m.metric,
                String(m.n),
                m.mean === null ? 'undefined' : m.mean.toFixed(4),
                m.ci ? `[${m.ci.lower.toFixed(4)}, ${m.ci.upper.toFixed(4)}]` : '',
              ]),
            ];
            io.stdout.write(alignedColumns(table, ['left', 'right', 'right', 'left']));
            for (const [metric, c] of verdicts)
              io.stdout.write(`verdict ${metric}: ${c.pass} pass, ${c.fail} fail\n`);
            if (operational) {
              io.stdout.write(
                `observations: ${operational.observations}, p50 ${ms(operational.p50_ms)}, p95 ${ms(operational.p95_ms)}, p99 ${ms(operational.p99_ms)}, errors/1k ${operational.error_rate_per_1k?.toFixed(2) ?? '-'}${operational.timeout_share !== undefined ? `, timeout share ${operational.timeout_share.toFixed(4)}` : ''}\n`,
              );
            }
            io.stdout.write(flags.output ? `wrote ${flags.output}\n` : 'rows not written (use -o FILE)\n');
          }
          return errors > 0 ? 1 : 0;
        }),
      );

    retrieval
      .command('gate')
      .summary('turn observations into evaluation_result events; exit 1 when a gate fails')
      .description(
        'Turn evaluation_observation events into evaluation_result events, one per threshold (per group with ' +
          '--group-by): p50_ms, p95_ms, p99_ms (type-7 quantiles), error_rate_per_1k (4xx/5xx, errors and timeouts ' +
          'per 1,000 requests, client aborts excluded), timeout_share (latency above soft_deadline_ms), errors. ' +
          'Each result carries the value, threshold, pass and the request_ids it was computed from.\n\n' +
          'Exit codes: 0 every gate passed, 1 a gate failed or a threshold could not be measured, 2 usage or I/O error.',
      )
      .requiredOption('--events <file>', 'events (JSONL); evaluation_observation rows are used')
      .requiredOption(
        '--thresholds <file>',
        'threshold set (JSON), e.g. {"thresholds": {"p95_ms": 800}, "soft_deadline_ms": 1500}',
      )
      .addOption(
        new Option('--group-by <field>', 'gate each value of this field separately').choices([
          'agent_id',
          'user_id',
          'layer',
          'model_id',
          'tool_id',
        ]),
      )
      .option('-o, --output <file>', 'write the evaluation_result events here (JSONL, atomically)')
      .addOption(formatOption())
      .action((flags: GateFlags) =>
        run(async () => {
          checkOutputs({ inputs: [flags.events, flags.thresholds], files: [flags.output], cwd: io.cwd });
          const diagnostics: Diagnostic[] = [];
          const config = await readGateThresholds(io, flags.thresholds);
          const { observations } = await readObservations(io, flags.events, diagnostics);
          const outcome = gateObservations(observations, config, { groupBy: flags.groupBy });
          if (flags.output) await writeFileAtomic(resolvePath(io.cwd, flags.output), toJsonl(outcome.events));
          const ok =
            outcome.failed.length === 0 &&
            outcome.unmeasured.length === 0 &&
            observations.length > 0 &&
            !outcome.nothingGated;
          if (flags.format === 'json') {
            io.stdout.write(json({ pass: ok, observations: observations.length, ...outcome, diagnostics }));
          } else {
            printDiagnostics(io, diagnostics);
            for (const e of outcome.events) {
              io.stdout.write(
                `${e.pass ? 'PASS' : 'FAIL'} ${e.request_id} ${e.metric} = ${Number(e.value.toFixed(6))} (threshold ${e.threshold})\n`,
              );
            }
            for (const m of outcome.unmeasured)
              io.stdout.write(`UNMEASURED ${m}: no data for it in the observations\n`);
            if (outcome.notGated.length > 0) {
              io.stdout.write(
                `not gated here (need gold rows, see \`retrieval score\`): ${outcome.notGated.join(', ')}\n`,
              );
            }
            if (observations.length === 0) io.stdout.write('no evaluation_observation events found\n');
            else if (outcome.nothingGated)
              io.stdout.write(
                `nothing to gate: the thresholds name none of ${GATE_METRICS.join(', ')} — not a pass\n`,
              );
            io.stdout.write(
              `${ok ? 'gate passed' : 'gate failed'}: ${outcome.events.length} results from ${observations.length} observations\n`,
            );
          }
          return ok && !diagnostics.some((d) => d.severity === 'error') ? 0 : 1;
        }),
      );

    const serve = retrieval
      .command('serve')
      .summary(
        'a long-running HTTP service a retrieval system reports its events to; gates and feedback actions',
      )
      .description(
        'Serve the online retrieval loop over one store (--db, opened read-write: one writer at a time).\n\n' +
          '  POST   /v1/events        NDJSON or a JSON array of 0.1 events; answers {"accepted": N, "rejected":\n' +
          '                           [{"line", "code", "message"}]}; accepted events are committed before the\n' +
          '                           answer; the same event sent twice is stored once\n' +
          '  GET    /v1/metrics       ?window=SECONDS&by=layer,tool_id,model_id: per group the observation count,\n' +
          '                           the mean of every evaluation_result metric, latency p50/p95, error rate\n' +
          '  GET    /v1/actions       the active feedback actions (not expired, not revoked)\n' +
          '  DELETE /v1/actions/{id}  revoke one; JSON body {"by": "...", "reason": "..."} is recorded\n' +
          '  GET    /healthz\n\n' +
          'With --thresholds, gates run every --gate-interval seconds on the last --window seconds per group and\n' +
          'each evaluation is stored as an evaluation_result event. With --policy (JSON keyed by metric, e.g.\n' +
          '{"p_at_5": {"action": "rerank_tweak", "ttl_ms": 600000, "scope_fields": ["tool_id"]}}) a failing gate\n' +
          'issues one feedback_action per breach: a new one only after the last expired or was revoked.\n\n' +
          'Security: writes always need Authorization: Bearer TOKEN (--token, or generated and printed at start);\n' +
          'off loopback, reads need it too. Every request must name this server in its Host header (the loopback\n' +
          'names, the --host address, and each --allow-host), else 421: a web page cannot read it by DNS rebinding.\n' +
          'Each event line is read as `ingest` reads one: a number that overflows (1e999), a date that does not\n' +
          'exist (2026-02-30), a duplicate key or nesting deeper than 256 levels is rejected with its code.\n' +
          'SIGTERM or Ctrl-C stops listening, lets requests in flight finish for up to --drain seconds, then\n' +
          'cuts the connections still open (never acknowledged), commits what was acknowledged and exits.\n\n' +
          'Exit codes: 0 stopped, 1 invalid thresholds or policy, 2 usage or I/O error.',
      );
    addDbOption(serve)
      .option(
        '--host <host>',
        'interface to listen on (any but loopback needs the token for reads too)',
        '127.0.0.1',
      )
      .option('-p, --port <n>', 'port (0: any free port)', '8787')
      .option(
        '--token <token>',
        'the bearer token (at least 8 visible ASCII characters, no spaces); generated when absent',
      )
      .option(
        '--allow-host <name>',
        'also answer requests whose Host header names this (a proxy, a DNS name); repeatable',
        collect,
      )
      .option('--drain <seconds>', 'on stop, how long requests in flight may take to finish', '5')
      .option('--thresholds <file>', 'gates: a threshold set as `retrieval gate` takes it')
      .option('--policy <file>', 'feedback actions for failing gates (JSON keyed by metric)')
      .option('--window <seconds>', 'the rolling window of the gates', '300')
      .option('--gate-interval <seconds>', 'how often the gates run', '10')
      .option(
        '--group-by <fields>',
        'gate groups: comma-separated layer, tool_id, model_id, agent_id, user_id',
        'layer,tool_id,model_id',
      )
      .option('--max-body-bytes <n>', 'largest request body; larger ones get 413', String(4 * 1024 * 1024))
      .option('--max-skew <seconds>', 'how far in the future an event time may be', '300')
      .addOption(
        new Option('-f, --format <format>', 'the start-up line as text, or json ({url, token, store})')
          .choices(['text', 'json'])
          .default('text'),
      )
      .action((flags: ServeFlags) =>
        run(async () => {
          const port = optionalInteger(flags.port, '--port', 0)!;
          if (port > 65535) throw new UsageError('usage.bad-option', '--port must be at most 65535');
          const windowS = positiveNumber(flags.window, '--window');
          const intervalS = positiveNumber(flags.gateInterval, '--gate-interval');
          const maxBody = optionalInteger(flags.maxBodyBytes, '--max-body-bytes', 1)!;
          const skewS = positiveNumber(flags.maxSkew, '--max-skew');
          const drainS = positiveNumber(flags.drain, '--drain');
          const { parseGroupBy } = await import('../../serve/retrieval/window.js');
          const { parsePolicy, startRetrievalServer, tokenProblem } = await Promise.all([
            import('../../serve/retrieval/loop.js'),
            import('../../serve/retrieval/server.js'),
          ]).then(([a, b]) => ({ ...a, ...b }));
          const badToken = flags.token === undefined ? undefined : tokenProblem(flags.token);
          if (badToken) throw new UsageError('usage.bad-option', `--token: ${badToken}`);
          let gateBy;
          try {
            gateBy = parseGroupBy(flags.groupBy);
          } catch (error) {
            throw new UsageError('usage.bad-option', `--group-by: ${(error as Error).message}`);
          }
          const thresholds = flags.thresholds ? await readGateThresholds(io, flags.thresholds) : undefined;
          const policy = flags.policy
            ? parsePolicy(await readJsonDocument(resolvePath(io.cwd, flags.policy)), flags.policy)
            : undefined;
          if (policy && !thresholds)
            throw new UsageError('usage.bad-option', '--policy acts on failing gates: give --thresholds too');
          for (const metric of Object.keys(policy ?? {}))
            if (!thresholds!.thresholds.some((t) => t.metric === metric))
              throw new UsageError(
                'usage.bad-option',
                `--policy names ${metric}, which --thresholds does not gate: it could never act`,
              );
          const { openStore } = await import('../../store/db.js');
          const store = await openStore(dbPathOf(flags.db, io), { readOnly: false });
          try {
            const server = await startRetrievalServer({
              store,
              host: flags.host,
              port,
              token: flags.token,
              thresholds,
              policy,
              windowMs: windowS * 1000,
              gateIntervalMs: intervalS * 1000,
              gateBy,
              maxBodyBytes: maxBody,
              maxFutureSkewMs: skewS * 1000,
              allowHosts: flags.allowHost,
              drainMs: drainS * 1000,
            });
            if (flags.format === 'json')
              io.stdout.write(
                JSON.stringify({ url: server.url, token: server.token, store: store.path }) + '\n',
              );
            else
              io.stdout.write(
                `${server.url}\nevalkit retrieval serve: storing events in ${store.path}; ` +
                  `token ${flags.token === undefined ? server.token : '(as given)'} ` +
                  `(send Authorization: Bearer TOKEN); Ctrl-C stops\n`,
              );
            await untilStopped();
            await server.close();
            return 0;
          } finally {
            store.close();
          }
        }),
      );
  },
};
