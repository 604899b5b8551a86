/**
 * The EEE datastore integrity checks that look beyond one document's schema (checks 2–10 of the EEE spec; check 1,
 * strict JSON, is the reader's, and is repeated here only for samples files reached as companions). Every finding
 * is a Diagnostic; nothing here throws on bad data, and a file_path that leaves the datastore is never followed.
 */
import { createHash } from 'node:crypto';
import { existsSync, realpathSync } from 'node:fs';
import { createRegularReadStream } from '../io/regular-file.js';
import { basename, dirname, isAbsolute, join, resolve, sep } from 'node:path';
import type { Diagnostic } from '../diagnostics.js';
import { algorithmOfHash, matchingSampleHashRecipe, sampleHash } from '../formats/eee/sample-hash.js';
import { canonicalJson } from '../io/canonical.js';
import { splitLines } from '../io/jsonl.js';
import { parseStrictJson } from '../io/strict-json.js';
import { JsonCache } from './json-cache.js';
import { Findings, WHOLE_FILE } from './report.js';
import {
  datastoreLocation,
  layoutProblems,
  nonPortableReason,
  uuidOfName,
  type DatastoreFileKind,
  type DatastoreLocation,
} from './names.js';
import { isObject, type Json } from '../io/json-value.js';
import { isFlatObjectPath } from './eee-flat.js';

interface AggregateFile {
  path: string;
  text: string;
  doc: Json;
  location?: DatastoreLocation;
}

/** What an aggregate's detailed_evaluation_results claims about its samples file, checked once it is read. */
interface CompanionClaim {
  aggregate: AggregateFile;
  totalRows?: number;
  checksum?: { algorithm: 'sha256' | 'md5'; value: string };
}

interface SamplesFile {
  path: string;
  location?: DatastoreLocation;
  /** Set when it was not among the files given, so check 1 has not run on it yet. */
  reachedAsCompanion: boolean;
  /** Aggregates that point at this file (or lie beside it without pointing at it). */
  aggregates: AggregateFile[];
  claims: CompanionClaim[];
}

/** True when a parsed document is an EEE aggregate record. */
export function looksLikeEeeAggregate(doc: unknown): doc is Json {
  return (
    isObject(doc) && Array.isArray(doc.evaluation_results) && ('model_info' in doc || 'schema_version' in doc)
  );
}

/** True when a parsed JSONL row is an EEE instance row. */
export function looksLikeEeeRow(row: unknown): row is Json {
  return isObject(row) && 'sample_id' in row && ('evaluation_id' in row || 'model_id' in row);
}

class Tree {
  readonly aggregates = new Map<string, AggregateFile | null>();
  readonly samples = new Map<string, SamplesFile | null>();
  constructor(
    readonly findings: Findings,
    readonly json: JsonCache,
    /** The objects of a flat datastore: no tree location (their index row's legacy_path is checked instead). */
    readonly flat = false,
  ) {}

  private locationOf(path: string): DatastoreLocation | undefined {
    return this.flat || isFlatObjectPath(path) ? undefined : datastoreLocation(path);
  }

  async loadAggregate(path: string): Promise<AggregateFile | undefined> {
    if (this.aggregates.has(path)) return this.aggregates.get(path) ?? undefined;
    this.aggregates.set(path, null);
    const parsed = await this.json.get(path);
    if (!parsed?.ok || !looksLikeEeeAggregate(parsed.value)) return undefined;
    const file: AggregateFile = {
      path,
      text: parsed.text,
      doc: parsed.value,
      location: this.locationOf(path),
    };
    this.aggregates.set(path, file);
    return file;
  }

  /** Registers a samples file (read later, once, by `scanSamples`). Given .jsonl files must look like EEE rows. */
  async registerSamples(path: string, reachedAsCompanion: boolean): Promise<SamplesFile | undefined> {
    const known = this.samples.get(path);
    if (known !== undefined) return known ?? undefined;
    this.samples.set(path, null);
    if (!existsSync(path)) return undefined;
    if (!reachedAsCompanion && !basename(path).endsWith('_samples.jsonl') && !(await firstRowLooksEee(path)))
      return undefined;
    const file: SamplesFile = {
      path,
      location: this.locationOf(path),
      reachedAsCompanion,
      aggregates: [],
      claims: [],
    };
    this.samples.set(path, file);
    return file;
  }
}

/** Whether the first non-blank line of a JSONL file is an EEE instance row (reads only the first batch). */
async function firstRowLooksEee(path: string): Promise<boolean> {
  const stream = createRegularReadStream(path, { highWaterMark: 64 * 1024 });
  try {
    for await (const batch of splitLines(stream, { maxLineBytes: 16 * 1024 * 1024 })) {
      const parsed = parseStrictJson(batch[0].bytes);
      return parsed.ok && looksLikeEeeRow(parsed.value);
    }
    return false;
  } catch {
    return false;
  } finally {
    stream.destroy();
  }
}

/**
 * Runs the datastore checks over the given absolute paths. Only paths inside an EEE datastore tree (below a
 * `data/` folder, see `datastoreLocation`) are checked, with the companions they name; other files are ignored,
 * so validating a lone JSONL file never reads it a second time.
 */
export async function checkEeeTree(paths: string[], json = new JsonCache()): Promise<Diagnostic[]> {
  return (await prepareEeeTree(paths, json)).finish();
}

/** The datastore checks split in two, so that a caller that reads the given samples files anyway feeds their rows. */
export interface PreparedEeeTree {
  /**
   * The per-row checks of a given samples file, to be fed every non-blank line of one read of it (then `done()`);
   * undefined when the path is not a samples file of the tree (or was already handed out). A file not fed
   * completely is read again by `finish`.
   */
  rowChecks(path: string): SamplesRowChecks | undefined;
  /**
   * The same for a worker thread: what its row checks need (then `acceptRows` with what they found); undefined
   * when the path is not a samples file of the tree (or was already handed out).
   */
  rowContext(path: string): RowCheckContext | undefined;
  acceptRows(path: string, result: RowCheckResult): void;
  /** The remaining checks (reading the samples files nobody fed); every finding as a Diagnostic. */
  finish(): Promise<Diagnostic[]>;
}

/**
 * Reads the aggregates and pairs them with their samples files; the samples files themselves are read later.
 * With `flat`, the paths are the objects of a flat datastore (`flat/objects/…`): every check of the tree layout
 * runs on them but the folder layout, which is their index rows' `legacy_path` (eee-flat.ts, the same rule).
 */
export async function prepareEeeTree(
  paths: string[],
  json = new JsonCache(),
  options: { flat?: boolean } = {},
): Promise<PreparedEeeTree> {
  const findings = new Findings();
  const tree = new Tree(findings, json, options.flat === true);
  const given = [...new Set(paths.map((p) => resolve(p)))]
    // A flat object (`…/flat/objects/…`) is never a tree file, whatever `data/` folder lies above it.
    .filter((p) =>
      options.flat ? isFlatObjectPath(p) : !isFlatObjectPath(p) && datastoreLocation(p) !== undefined,
    )
    .sort();

  for (const path of given) {
    if (path.endsWith('.jsonl')) await tree.registerSamples(path, false);
    else if (path.endsWith('.json')) await tree.loadAggregate(path);
  }
  // Companions on disk: the aggregate beside a samples file.
  for (const s of [...tree.samples.values()]) {
    if (!s) continue;
    const uuid = uuidOfName(basename(s.path));
    if (uuid) await tree.loadAggregate(join(dirname(s.path), `${uuid}.json`));
  }
  const aggregates = [...tree.aggregates.values()].filter((a): a is AggregateFile => a !== null);
  for (const a of aggregates) await checkPairing(a, tree, findings);
  for (const a of aggregates) {
    checkLayout(a.path, a.location, 'aggregate', findings);
    checkScores(a, findings);
    checkDeploymentAxes(a, findings);
  }
  checkDuplicates(aggregates, findings);
  const fed = new Map<SamplesFile, SamplesRowChecks | RowCheckResult | null>();
  const handOut = (path: string): SamplesFile | undefined => {
    const s = tree.samples.get(resolve(path));
    if (!s || s.reachedAsCompanion || fed.has(s)) return undefined;
    fed.set(s, null);
    return s;
  };
  return {
    rowChecks(path: string): SamplesRowChecks | undefined {
      const s = handOut(path);
      if (!s) return undefined;
      const rows = new SamplesRowChecks(rowCheckContext(s));
      fed.set(s, rows);
      return rows;
    },
    rowContext(path: string): RowCheckContext | undefined {
      const s = handOut(path);
      return s ? rowCheckContext(s) : undefined;
    },
    acceptRows(path: string, result: RowCheckResult): void {
      const s = tree.samples.get(resolve(path));
      if (s && fed.get(s) === null) fed.set(s, result);
    },
    async finish(): Promise<Diagnostic[]> {
      for (const s of tree.samples.values()) {
        if (!s) continue;
        checkLayout(s.path, s.location, 'samples', findings);
        if (s.aggregates.length === 0)
          findings.add(s.path, 'eee.companion-orphan', 'no aggregate record points at this samples file', {
            ...WHOLE_FILE,
            severity: s.location ? 'error' : 'warning',
          });
        const rows = fed.get(s);
        if (rows instanceof SamplesRowChecks && rows.complete) {
          findings.append(rows.findings);
          await checkClaims(s, rows.lines, await digests(s), findings);
        } else if (rows && !(rows instanceof SamplesRowChecks)) {
          for (const d of rows.diagnostics) findings.addDiagnostic(d);
          await checkClaims(s, rows.lines, await digests(s), findings);
        } else await scanSamples(s, findings);
      }
      return findings.diagnostics();
    },
  };
}

function checkLayout(
  path: string,
  location: DatastoreLocation | undefined,
  kind: DatastoreFileKind,
  findings: Findings,
): void {
  if (!location) {
    const reason = nonPortableReason(basename(path));
    if (reason)
      findings.add(path, 'eee.portable-name', `file name ${JSON.stringify(basename(path))} ${reason}`, {
        ...WHOLE_FILE,
        severity: 'warning',
      });
    return;
  }
  for (const part of location.parts) {
    const reason = nonPortableReason(part);
    if (reason)
      findings.add(path, 'eee.portable-name', `path part ${JSON.stringify(part)} ${reason}`, WHOLE_FILE);
  }
  for (const problem of layoutProblems(location.parts, kind))
    findings.add(path, 'eee.layout', `the ${kind} file ${problem}`, WHOLE_FILE);
}

/** Whether `target` (which exists) stays inside `root` once symbolic links are resolved. */
function staysInside(target: string, root: string): boolean {
  try {
    const realRoot = realpathSync(root);
    const real = realpathSync(target);
    return real === realRoot || real.startsWith(realRoot.endsWith(sep) ? realRoot : realRoot + sep);
  } catch {
    return false;
  }
}

async function checkPairing(a: AggregateFile, tree: Tree, findings: Findings): Promise<void> {
  const uuid = uuidOfName(basename(a.path));
  const sibling = uuid ? join(dirname(a.path), `${uuid}_samples.jsonl`) : undefined;
  const siblingExists = sibling !== undefined && existsSync(sibling);
  const der = a.doc.detailed_evaluation_results;
  const at = (pointer: string) => ({ text: a.text, pointer });
  if (!isObject(der)) {
    if (siblingExists) {
      findings.add(
        a.path,
        'eee.companion-unreferenced',
        `${basename(sibling)} lies beside this aggregate but detailed_evaluation_results is missing`,
        at(''),
      );
      const s = await tree.registerSamples(sibling, true);
      // The pairing is broken; the rows are still checked against this aggregate.
      if (s && !s.aggregates.includes(a)) s.aggregates.push(a);
    }
    return;
  }
  if (der.format !== 'jsonl')
    findings.add(
      a.path,
      'eee.companion-mismatch',
      `detailed_evaluation_results.format is ${JSON.stringify(der.format ?? null)}, not "jsonl"`,
      at('/detailed_evaluation_results/format'),
    );
  const filePath = der.file_path;
  if (typeof filePath !== 'string') return;
  const fp = '/detailed_evaluation_results/file_path';
  const root = a.location?.root ?? dirname(a.path);
  if (
    isAbsolute(filePath) ||
    /^[A-Za-z]:/.test(filePath) ||
    filePath.includes('\\') ||
    filePath.split('/').includes('..')
  ) {
    findings.add(
      a.path,
      'eee.file-path-outside',
      `file_path ${JSON.stringify(filePath)} is not below the datastore root`,
      at(fp),
    );
    return;
  }
  const target = a.location ? join(a.location.root, filePath) : join(dirname(a.path), basename(filePath));
  if (sibling && target !== sibling && siblingExists)
    findings.add(
      a.path,
      'eee.companion-mismatch',
      `file_path ${JSON.stringify(filePath)} does not name the sibling samples file ${basename(sibling)}`,
      at(fp),
    );
  if (!existsSync(target)) {
    findings.add(
      a.path,
      'eee.companion-missing',
      `file_path ${JSON.stringify(filePath)} names no existing file`,
      at(fp),
    );
    return;
  }
  if (!staysInside(target, root)) {
    findings.add(
      a.path,
      'eee.file-path-outside',
      `file_path ${JSON.stringify(filePath)} resolves through a symbolic link to a place outside ${root}`,
      at(fp),
    );
    return;
  }
  const s = await tree.registerSamples(target, true);
  if (!s) return;
  s.aggregates.push(a);
  const claim: CompanionClaim = { aggregate: a };
  if (typeof der.total_rows === 'number') claim.totalRows = der.total_rows;
  if (typeof der.checksum === 'string') {
    const declared = der.hash_algorithm;
    const algorithm =
      declared === 'sha256' || declared === 'md5'
        ? declared
        : declared === undefined
          ? algorithmOfHash(der.checksum)
          : undefined;
    if (algorithm) claim.checksum = { algorithm, value: der.checksum.toLowerCase() };
  }
  s.claims.push(claim);
}

/** A bound as a number (±Infinity from the strings), undefined when absent, null when malformed. */
function bound(v: unknown): number | undefined | null {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'number') return Number.isNaN(v) ? null : v;
  if (v === 'Infinity') return Infinity;
  if (v === '-Infinity') return -Infinity;
  return null;
}

function nonFiniteNumbers(value: unknown, pointer: string, out: string[]): void {
  if (typeof value === 'number' && !Number.isFinite(value)) out.push(pointer);
  else if (Array.isArray(value)) value.forEach((v, i) => nonFiniteNumbers(v, `${pointer}/${i}`, out));
  else if (isObject(value))
    for (const [k, v] of Object.entries(value))
      nonFiniteNumbers(v, `${pointer}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`, out);
}

function checkScores(a: AggregateFile, findings: Findings): void {
  const results = a.doc.evaluation_results as unknown[];
  results.forEach((result, i) => {
    if (!isObject(result)) return;
    const base = `/evaluation_results/${i}`;
    const at = (pointer: string) => ({ text: a.text, pointer });
    const mc = isObject(result.metric_config) ? result.metric_config : {};
    const sd = isObject(result.score_details) ? result.score_details : {};
    const min = bound(mc.min_score);
    const max = bound(mc.max_score);
    if (min === null)
      findings.add(
        a.path,
        'eee.score-bounds',
        `min_score ${JSON.stringify(mc.min_score)} is not a number or "-Infinity"`,
        at(`${base}/metric_config/min_score`),
      );
    if (max === null)
      findings.add(
        a.path,
        'eee.score-bounds',
        `max_score ${JSON.stringify(mc.max_score)} is not a number or "Infinity"`,
        at(`${base}/metric_config/max_score`),
      );
    if (mc.score_type === 'continuous' && (min === undefined || max === undefined))
      findings.add(
        a.path,
        'eee.score-bounds',
        `continuous metric "${String(result.evaluation_name ?? i)}" lacks ${min === undefined ? 'min_score' : 'max_score'}`,
        at(`${base}/metric_config`),
      );
    if (typeof min === 'number' && typeof max === 'number' && min > max)
      findings.add(
        a.path,
        'eee.score-bounds',
        `min_score ${min} is greater than max_score ${max}`,
        at(`${base}/metric_config`),
      );
    const bad: string[] = [];
    nonFiniteNumbers(sd.score, `${base}/score_details/score`, bad);
    nonFiniteNumbers(sd.uncertainty, `${base}/score_details/uncertainty`, bad);
    for (const pointer of bad)
      findings.add(
        a.path,
        'eee.score-not-finite',
        `${pointer.slice(base.length + 1)} is not finite`,
        at(pointer),
      );
    const score = sd.score;
    if (
      typeof score === 'number' &&
      Number.isFinite(score) &&
      typeof min === 'number' &&
      typeof max === 'number' &&
      min <= max
    ) {
      if (score < min || score > max) {
        const hint =
          max === 1 && score > 1 && score <= 100 ? ' (it looks like a percentage against 0–1 bounds)' : '';
        findings.add(
          a.path,
          'eee.score-out-of-range',
          `score ${score} lies outside [${min}, ${max}]${hint}`,
          at(`${base}/score_details/score`),
        );
      }
    }
  });
}

function checkDeploymentAxes(a: AggregateFile, findings: Findings): void {
  if (a.doc.schema_version !== '0.3.0') return;
  const check = (modelInfo: unknown, pointer: string, who: string): void => {
    if (!isObject(modelInfo)) return;
    const details = modelInfo.additional_details;
    const missing = ['deployment_type', 'model_availability'].filter(
      (k) => !isObject(details) || !(k in details),
    );
    if (missing.length > 0)
      findings.add(a.path, 'eee.deployment-axes', `${who} lacks ${missing.join(' and ')}`, {
        text: a.text,
        pointer: `${pointer}/additional_details`,
      });
  };
  check(a.doc.model_info, '/model_info', 'model_info');
  (a.doc.evaluation_results as unknown[]).forEach((result, i) => {
    const judges = isObject(result) ? (result.metric_config?.llm_scoring?.judges as unknown) : undefined;
    if (!Array.isArray(judges)) return;
    judges.forEach((judge, j) => {
      if (isObject(judge))
        check(
          judge.model_info,
          `/evaluation_results/${i}/metric_config/llm_scoring/judges/${j}/model_info`,
          `judge ${j} of result ${i}`,
        );
    });
  });
}

/** Check 10's fingerprint: no evaluation_id / retrieved_timestamp at any depth, lists sorted by canonical JSON. */
export function recordFingerprint(doc: unknown): string {
  const strip = (v: unknown): unknown => {
    if (Array.isArray(v))
      return v
        .map(strip)
        .map((x) => [canonicalJson(x), x] as const)
        .sort((x, y) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0))
        .map(([, x]) => x);
    if (isObject(v))
      return Object.fromEntries(
        Object.entries(v)
          .filter(([k]) => k !== 'evaluation_id' && k !== 'retrieved_timestamp')
          .map(([k, x]) => [k, strip(x)]),
      );
    return v;
  };
  return createHash('sha256')
    .update(canonicalJson(strip(doc)), 'utf8')
    .digest('hex');
}

function checkDuplicates(aggregates: AggregateFile[], findings: Findings): void {
  const seen = new Map<string, AggregateFile>();
  for (const a of aggregates) {
    let fp: string;
    try {
      fp = recordFingerprint(a.doc);
    } catch {
      continue;
    }
    const first = seen.get(fp);
    if (first)
      findings.add(a.path, 'eee.duplicate-record', `this record duplicates ${first.path}`, {
        text: a.text,
        pointer: '',
      });
    else seen.set(fp, a);
  }
}

/** The aggregate that speaks for a samples file: the one beside it (same uuid), else the first that points at it. */
function aggregateOf(s: SamplesFile): AggregateFile | undefined {
  const uuid = uuidOfName(basename(s.path));
  return (
    s.aggregates.find((a) => dirname(a.path) === dirname(s.path) && uuidOfName(basename(a.path)) === uuid) ??
    s.aggregates[0]
  );
}

/** The hash algorithms the aggregates' checksums of a samples file ask for. */
function claimedAlgorithms(s: SamplesFile): Set<'sha256' | 'md5'> {
  return new Set(s.claims.flatMap((p) => (p.checksum ? [p.checksum.algorithm] : [])));
}

/** The file's digests for its claimed checksums (a read of the bytes, no parsing); undefined when unreadable. */
async function digests(s: SamplesFile): Promise<Map<string, string> | undefined> {
  const algorithms = claimedAlgorithms(s);
  if (algorithms.size === 0) return new Map();
  const hashes = new Map([...algorithms].map((a) => [a, createHash(a)]));
  const stream = createRegularReadStream(s.path, { highWaterMark: 1024 * 1024 });
  try {
    for await (const chunk of stream) for (const h of hashes.values()) h.update(chunk as Buffer);
  } catch {
    stream.destroy();
    return undefined;
  }
  return new Map([...hashes].map(([a, h]) => [a, h.digest('hex')]));
}

/** Checks 5 and 6: the aggregates' total_rows and checksum against the file (skipped when it could not be read). */
async function checkClaims(
  s: SamplesFile,
  count: number,
  actual: Map<string, string> | undefined,
  findings: Findings,
): Promise<void> {
  if (!actual) return;
  for (const p of s.claims) {
    const at = (pointer: string) => ({ text: p.aggregate.text, pointer });
    if (p.totalRows !== undefined && p.totalRows !== count)
      findings.add(
        p.aggregate.path,
        'eee.total-rows',
        `total_rows is ${p.totalRows} but ${basename(s.path)} has ${count} non-blank line(s)`,
        at('/detailed_evaluation_results/total_rows'),
      );
    if (p.checksum) {
      const digest = actual.get(p.checksum.algorithm);
      if (digest !== p.checksum.value)
        findings.add(
          p.aggregate.path,
          'eee.checksum',
          `checksum ${p.checksum.value} is not the ${p.checksum.algorithm} of ${basename(s.path)} (${digest})`,
          at('/detailed_evaluation_results/checksum'),
        );
    }
  }
}

/**
 * What the row checks of one samples file need to know: its path and the aggregate that speaks for it (plain
 * data, so that a worker thread can run the checks).
 */
export interface RowCheckContext {
  path: string;
  aggregate?: { evaluationId: unknown; modelId: unknown; resultIds: string[] };
}

function rowCheckContext(s: SamplesFile): RowCheckContext {
  const aggregate = aggregateOf(s);
  if (!aggregate) return { path: s.path };
  const resultIds: string[] = [];
  for (const r of aggregate.doc.evaluation_results as unknown[])
    if (isObject(r) && typeof r.evaluation_result_id === 'string') resultIds.push(r.evaluation_result_id);
  const info = aggregate.doc.model_info;
  return {
    path: s.path,
    aggregate: {
      evaluationId: aggregate.doc.evaluation_id,
      modelId: isObject(info) ? info.id : undefined,
      resultIds,
    },
  };
}

/** What the row checks of a samples file found, as sent back by a worker thread. */
export interface RowCheckResult {
  /** Non-blank lines read. */
  lines: number;
  diagnostics: Diagnostic[];
}

/**
 * Checks 4, 8 and 9 on every row of one samples file: sample_id unique, sample_hash canonical, foreign keys as in
 * its aggregate. Fed each non-blank line of one read, by `scanSamples` or by a validator reading the file anyway
 * (in this thread or in a worker).
 */
export class SamplesRowChecks {
  readonly findings = new Findings();
  /** Non-blank lines fed. */
  lines = 0;
  /** Set by `done()`, once every line was fed. */
  complete = false;
  private readonly ids = new Map<string, number>();
  private readonly resultIds: Set<string>;

  constructor(private readonly context: RowCheckContext) {
    this.resultIds = new Set(context.aggregate?.resultIds ?? []);
  }

  /**
   * One non-blank line (`line` is its number in the file). Pass the parsed row only when the line is strict JSON
   * without any issue; other lines are counted and not checked.
   */
  line(line: number, row?: { text: string; value: unknown }): void {
    this.lines++;
    if (row && isObject(row.value)) this.check(line, row.text, row.value);
  }

  /** Every line was fed. */
  done(): void {
    this.complete = true;
  }

  /** The findings as Diagnostics (positions looked up), with the line count: what a worker sends back. */
  result(): RowCheckResult {
    return { lines: this.lines, diagnostics: this.findings.diagnostics() };
  }

  private check(line: number, text: string, v: Json): void {
    const { findings, context: s } = this;
    const aggregate = s.aggregate;
    const at = (pointer: string) => ({ text, firstLine: line, pointer });
    const sampleId = v.sample_id;
    if (typeof sampleId === 'string' || typeof sampleId === 'number') {
      const key = String(sampleId);
      const first = this.ids.get(key);
      if (first !== undefined)
        findings.add(
          s.path,
          'eee.sample-id-duplicate',
          `sample_id ${JSON.stringify(key)} already used on line ${first}`,
          at('/sample_id'),
        );
      else this.ids.set(key, line);
    }
    if (typeof v.sample_hash === 'string' && isObject(v.input)) {
      const expected = sampleHash(v.input, algorithmOfHash(v.sample_hash));
      if (expected !== v.sample_hash.toLowerCase()) {
        const recipe = matchingSampleHashRecipe(v.input, v.sample_hash);
        if (recipe && recipe.id !== 'canonical')
          findings.add(
            s.path,
            'eee.sample-hash-recipe',
            `sample_hash matches the older recipe "${recipe.id}" (${recipe.description}); canonical is ${expected}`,
            { ...at('/sample_hash'), severity: 'warning' },
          );
        else
          findings.add(
            s.path,
            'eee.sample-hash',
            `sample_hash is not the canonical ${expected}`,
            at('/sample_hash'),
          );
      }
    }
    if (!aggregate) return;
    if ('evaluation_id' in v && v.evaluation_id !== aggregate.evaluationId)
      findings.add(
        s.path,
        'eee.foreign-key',
        `evaluation_id ${JSON.stringify(v.evaluation_id)} differs from the aggregate's ${JSON.stringify(aggregate.evaluationId)}`,
        at('/evaluation_id'),
      );
    if ('model_id' in v && v.model_id !== aggregate.modelId)
      findings.add(
        s.path,
        'eee.foreign-key',
        `model_id ${JSON.stringify(v.model_id)} differs from the aggregate's model_info.id ${JSON.stringify(aggregate.modelId)}`,
        at('/model_id'),
      );
    if (typeof v.evaluation_result_id === 'string' && !this.resultIds.has(v.evaluation_result_id))
      findings.add(
        s.path,
        'eee.evaluation-result-id',
        `evaluation_result_id ${JSON.stringify(v.evaluation_result_id)} is not among the aggregate's (${[...this.resultIds].join(', ') || 'none'})`,
        at('/evaluation_result_id'),
      );
  }
}

/**
 * Reads a samples file nobody fed, once, as a stream: its digests and non-blank line count (for the aggregates'
 * checksum and total_rows), check 1 for companions, and the row checks. Memory stays at one chunk plus one row.
 */
async function scanSamples(s: SamplesFile, findings: Findings): Promise<void> {
  const rows = new SamplesRowChecks(rowCheckContext(s));
  const hashes = new Map([...claimedAlgorithms(s)].map((a) => [a, createHash(a)]));
  const stream = createRegularReadStream(s.path, { highWaterMark: 1024 * 1024 });
  async function* hashed(): AsyncGenerator<Buffer> {
    for await (const chunk of stream) {
      for (const h of hashes.values()) h.update(chunk as Buffer);
      yield chunk as Buffer;
    }
  }
  try {
    for await (const batch of splitLines(hashed())) {
      for (const line of batch) {
        const parsed = line.tooLong ? undefined : parseStrictJson(line.bytes);
        if (!parsed || !parsed.ok || !isObject(parsed.value) || parsed.issues.length > 0) {
          rows.line(line.line);
          if (s.reachedAsCompanion) {
            const issue = parsed?.issues[0];
            rows.findings.add(
              s.path,
              'eee.strict-json',
              `line ${line.line}: ${line.tooLong ? 'the line is too long to read' : (issue?.message ?? 'not a JSON object')}`,
              { position: { line: line.line, column: issue?.column ?? 1 }, pointer: issue?.pointer ?? '' },
            );
          }
          continue;
        }
        rows.line(line.line, parsed);
      }
    }
  } catch {
    // Unreadable mid-way: what was read has been checked; the digests are then not compared.
    stream.destroy();
    findings.append(rows.findings);
    return;
  }
  findings.append(rows.findings);
  await checkClaims(s, rows.lines, new Map([...hashes].map(([a, h]) => [a, h.digest('hex')])), findings);
}
