/**
 * Reading a task file (YAML or JSON) into the task model: the file is checked against the `evalkit.task` schema
 * (each mistake named by file:line:column and JSON pointer), the dataset is read (.jsonl, .json array, .csv), the
 * scorers compiled and every prompt rendered once, so that a task that cannot run fails before the first request.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, extname, resolve } from 'node:path';
import { LineCounter, parseDocument } from 'yaml';
import { DataError, IoError } from '../../errors.js';
import { canonicalJson } from '../../io/canonical.js';
import { confinedPath } from '../../io/confined-path.js';
import { parseCsv } from '../../io/csv-reader.js';
import { locatePointers, parseStrictJson } from '../../io/strict-json.js';
import { isObject } from '../../io/json-value.js';
import { assertRegularFileSync } from '../../io/regular-file.js';
import { evalkitTaskType } from '../../formats/evalkit/index.js';
import type { TaskFile } from '../../formats/evalkit/task.js';
import { compiledValidator } from '../../validate/schemas.js';
import { explainSchemaErrors } from '../../validate/schema-errors.js';
import { scorerDefinition } from './scorers.js';
import { buildMessages } from './prompt.js';
import { compileTools, taskLimits } from './tools.js';
import type { Row, Task, TaskLimits, TaskSample, TaskScorer, TaskTool } from './types.js';

export interface Located {
  value: unknown;
  /** line:column of the value at a JSON pointer (its nearest existing ancestor). */
  at(pointer: string): string;
}

export function readText(path: string, what: string): string {
  // A FIFO or a device (/dev/zero) would block or never end: only regular files are read.
  assertRegularFileSync(path, `the ${what} ${path}`);
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new IoError(
      'io.read',
      `cannot read the ${what} ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
}

/** The first problem of a strict parse (a byte-order mark is none), or undefined. */
function jsonProblem(parsed: ReturnType<typeof parseStrictJson>) {
  return parsed.issues.find((i) => i.code !== 'json.bom');
}

const pointerPath = (pointer: string): string[] =>
  pointer === ''
    ? []
    : pointer
        .slice(1)
        .split('/')
        .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));

/**
 * Parses YAML or JSON (by extension; .json is strict JSON), keeping a way back from pointers to positions. A
 * syntax error is a DataError whose code starts with `prefix` (`task.yaml`, `prices.json-…`).
 */
export function parseLocatedText(path: string, text: string, prefix = 'task'): Located {
  if (extname(path).toLowerCase() === '.json') {
    const parsed = parseStrictJson(text);
    const fatal = jsonProblem(parsed);
    if (fatal)
      throw new DataError(
        `${prefix}.${fatal.code}`,
        `${path}:${fatal.line}:${fatal.column} error ${prefix}.${fatal.code} ${fatal.message}`,
      );
    return {
      value: parsed.value,
      at: (pointer) => {
        const p = locatePointers(parsed.text, [pointer]).get(pointer);
        return p ? `${p.line}:${p.column}` : '1:1';
      },
    };
  }
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, uniqueKeys: true, prettyErrors: false });
  const error = doc.errors[0];
  if (error) {
    const pos = lineCounter.linePos(error.pos[0]);
    throw new DataError(
      `${prefix}.yaml`,
      `${path}:${pos.line}:${pos.col} error ${prefix}.yaml ${error.message.split('\n')[0]}`,
    );
  }
  return {
    value: doc.toJS({ maxAliasCount: 100 }),
    at: (pointer) => {
      const segments = pointerPath(pointer);
      for (let n = segments.length; n >= 0; n--) {
        const keys = segments.slice(0, n).map((s) => (/^\d+$/.test(s) ? Number(s) : s));
        const node = (n === 0 ? doc.contents : doc.getIn(keys, true)) as
          { range?: [number, number, number] } | undefined;
        if (node?.range) {
          const pos = lineCounter.linePos(node.range[0]);
          return `${pos.line}:${pos.col}`;
        }
      }
      return '1:1';
    },
  };
}

/** The task file's value, checked against the schema; every mistake in one error. */
export function readTaskFile(path: string): { file: TaskFile; at: (pointer: string) => string } {
  const located = parseLocatedText(path, readText(path, 'task file'));
  const validate = compiledValidator(evalkitTaskType.versions[0]);
  if (!validate(located.value)) {
    const issues = explainSchemaErrors(validate.errors ?? []);
    const lines = issues.map(
      (i) => `${path}:${located.at(i.pointer)} error task.${i.code} ${i.message} (at ${i.pointer || '/'})`,
    );
    throw new DataError(`task.${issues[0]?.code ?? 'schema'}`, lines.join('\n'));
  }
  return { file: located.value as TaskFile, at: located.at };
}

/** The dataset's rows with where each is, from .jsonl, .json (an array of objects) or .csv (a header row). */
export function readDataset(path: string): { row: Row; where: string }[] {
  const ext = extname(path).toLowerCase();
  const text = readText(path, 'dataset');
  if (ext === '.jsonl') {
    const rows: { row: Row; where: string }[] = [];
    text.split('\n').forEach((line, i) => {
      if (line.trim() === '') return;
      const parsed = parseStrictJson(line);
      const issue = jsonProblem(parsed);
      if (issue)
        throw new DataError(
          `task.dataset-${issue.code}`,
          `${path}:${i + 1}:${issue.column} error task.dataset-${issue.code} ${issue.message}`,
        );
      if (!isObject(parsed.value))
        throw new DataError(
          'task.dataset-row',
          `${path}:${i + 1}:1 error task.dataset-row a row must be a JSON object`,
        );
      rows.push({ row: parsed.value, where: `${path}:${i + 1}` });
    });
    return rows;
  }
  if (ext === '.json') {
    const parsed = parseStrictJson(text);
    const issue = jsonProblem(parsed);
    if (issue)
      throw new DataError(
        `task.dataset-${issue.code}`,
        `${path}:${issue.line}:${issue.column} error task.dataset-${issue.code} ${issue.message}`,
      );
    if (!Array.isArray(parsed.value))
      throw new DataError(
        'task.dataset-shape',
        `${path}:1:1 error task.dataset-shape a .json dataset is an array of objects`,
      );
    const at = locatePointers(
      parsed.text,
      parsed.value.map((_, i) => `/${i}`),
    );
    return parsed.value.map((row, i) => {
      const p = at.get(`/${i}`);
      const where = `${path}:${p?.line ?? 1}:${p?.column ?? 1}`;
      if (!isObject(row))
        throw new DataError(
          'task.dataset-row',
          `${where} error task.dataset-row row ${i + 1} is not an object (at /${i})`,
        );
      return { row, where };
    });
  }
  if (ext === '.csv') {
    const [header, ...records] = parseCsv(text, path);
    if (header === undefined) return [];
    return records
      .filter((r) => !(r.fields.length === 1 && r.fields[0] === ''))
      .map((r) => ({
        row: Object.fromEntries(header.fields.map((h, i) => [h, r.fields[i] ?? ''])),
        where: `${path}:${r.line}`,
      }));
  }
  throw new DataError('task.dataset-format', `${path}: a dataset is .jsonl, .json or .csv`);
}

const asText = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v));

/** The samples of a dataset under the task's field names; ids unique, inputs and targets present. */
export function samplesOf(
  rows: { row: Row; where: string }[],
  fields: Task['dataset']['fields'],
): TaskSample[] {
  const seen = new Map<string, string>();
  return rows.map(({ row, where }, i) => {
    const fail = (code: string, message: string): never => {
      throw new DataError(`task.${code}`, `${where} error task.${code} ${message}`);
    };
    const rawId = row[fields.id];
    const id = rawId === undefined || rawId === null || rawId === '' ? String(i + 1) : asText(rawId);
    if (seen.has(id)) fail('duplicate-id', `sample id "${id}" is also the id of the row at ${seen.get(id)}`);
    seen.set(id, where);
    const input = row[fields.input];
    if (input === undefined || input === null)
      fail('missing-input', `the row has no "${fields.input}" field (dataset.input)`);
    const target = row[fields.target];
    if (target === undefined || target === null)
      fail('missing-target', `the row has no "${fields.target}" field (dataset.target)`);
    const targets = Array.isArray(target) ? target.map(asText) : [asText(target)];
    if (targets.length === 0) fail('missing-target', `the row's "${fields.target}" is an empty list`);
    const sample: TaskSample = { id, where, row, input: asText(input), targets };
    if (fields.choices !== undefined) {
      const choices = row[fields.choices];
      if (!Array.isArray(choices) || choices.length === 0)
        fail('bad-choices', `the row's "${fields.choices}" must be a non-empty list (dataset.choices)`);
      sample.choices = (choices as unknown[]).map(asText);
    }
    return sample;
  });
}

/** Loads a task file into the task model. */
export function loadTask(taskPath: string): Task {
  const path = resolve(taskPath);
  const dir = dirname(path);
  const { file, at } = readTaskFile(path);
  const fields = {
    id: file.dataset.id ?? 'id',
    input: file.dataset.input ?? 'input',
    target: file.dataset.target ?? 'target',
    ...(file.dataset.choices !== undefined ? { choices: file.dataset.choices } : {}),
  };
  const datasetPath = confinedPath(
    dir,
    file.dataset.path,
    `${path}:${at('/dataset/path')} (at /dataset/path) the dataset`,
    'task.file-outside',
  );
  const samples = samplesOf(readDataset(datasetPath), fields);

  const scorers: TaskScorer[] = [];
  const options: Record<string, unknown>[] = [];
  file.scorers.forEach((spec, i) => {
    const [type, opts] =
      typeof spec === 'string' ? [spec, {}] : (Object.entries(spec)[0] as [string, Record<string, unknown>]);
    const where = `${path}:${at(`/scorers/${i}`)} (at /scorers/${i})`;
    const scorer = scorerDefinition(type)!.compile(opts, { dir, where });
    if (scorers.some((s) => s.name === scorer.name))
      throw new DataError(
        'task.duplicate-scorer',
        `${where} error task.duplicate-scorer two scorers are named "${scorer.name}"; give one a name`,
      );
    scorers.push(scorer);
    options.push(opts);
  });
  const epochs = file.epochs ?? 1;
  const reducer = file.reducer ?? 'mean';
  if (reducer === 'pass_at_k') {
    if (file.k === undefined)
      throw new DataError(
        'task.reducer-k',
        `${path}:${at('/reducer')} error task.reducer-k pass_at_k needs k (at /k)`,
      );
    if (file.k > epochs)
      throw new DataError(
        'task.reducer-k',
        `${path}:${at('/k')} error task.reducer-k k ${file.k} is more than epochs ${epochs} (at /k)`,
      );
  } else if (file.k !== undefined)
    throw new DataError(
      'task.reducer-k',
      `${path}:${at('/k')} error task.reducer-k k is only read by reducer pass_at_k (at /k)`,
    );
  const tools =
    file.tools !== undefined
      ? compileTools(file.tools, dir, (p) => `${path}:${at(p)}`, readDataset)
      : undefined;
  if (tools === undefined) {
    if (file.limits !== undefined)
      throw new DataError(
        'task.limits-without-tools',
        `${path}:${at('/limits')} error task.limits-without-tools limits apply to an agent task: add tools (at /limits)`,
      );
    scorers.forEach((s, i) => {
      if (s.kind === 'local' && s.trajectory)
        throw new DataError(
          'task.trajectory-without-tools',
          `${path}:${at(`/scorers/${i}`)} error task.trajectory-without-tools the ${s.type} scorer reads tool calls: the task has no tools (at /scorers/${i})`,
        );
    });
  }
  const g = file.generation ?? {};
  const task: Task = {
    name: file.name,
    ...(file.description !== undefined ? { description: file.description } : {}),
    source: path,
    dataset: { path: datasetPath, fields },
    samples,
    ...(file.system !== undefined ? { system: file.system } : {}),
    ...(file.messages !== undefined ? { messages: file.messages } : {}),
    scorers,
    epochs,
    reducer: reducer === 'pass_at_k' ? { name: reducer, k: file.k } : { name: reducer },
    generation: {
      temperature: g.temperature ?? 0,
      max_tokens: g.max_tokens ?? 256,
      ...(g.top_p !== undefined ? { top_p: g.top_p } : {}),
      ...(g.seed !== undefined ? { seed: g.seed } : {}),
      stop: g.stop ?? [],
    },
    ...(tools !== undefined ? { tools, limits: taskLimits(file.limits) } : {}),
    digest: '',
  };
  // Every sample can be scored and every prompt rendered before anything is sent.
  for (const sample of samples) {
    buildMessages(task, sample);
    file.scorers.forEach((_, i) => {
      const problem = scorerDefinition(scorers[i].type)!.check?.(sample, options[i]);
      if (problem)
        throw new DataError(
          'task.unscorable',
          `${sample.where} error task.unscorable ${problem} (scorer "${scorers[i].name}")`,
        );
      const s = scorers[i];
      // An agent task's judge may also read {{transcript}}.
      if (s.kind === 'judge') s.prompt('', sample, tools !== undefined ? '' : undefined);
    });
  }
  task.digest = taskDigest(task);
  return task;
}

/** What decides the requests and the scores: the task as parsed (file paths left out) and the rows. */
export function taskDigest(task: Task): string {
  return createHash('sha256')
    .update(
      canonicalJson({
        name: task.name,
        fields: task.dataset.fields,
        rows: task.samples.map((s) => s.row),
        system: task.system ?? null,
        messages: task.messages ?? null,
        scorers: task.scorers.map((s) => ({
          type: s.type,
          name: s.name,
          details: s.details,
          ...(s.kind === 'judge' ? { template: s.template.text, judge: s.judge } : {}),
        })),
        reducer: task.reducer,
        generation: task.generation,
        // Only an agent task adds its tools and limits, so the digests (and journals) of other tasks stay as they were.
        ...(task.tools !== undefined ? agentDigestFacts(task.tools, task.limits) : {}),
      }),
    )
    .digest('hex');
}

/** What decides an agent's calls beyond its prompts: every tool (a command's script and bounds, a table's rows), the limits. */
export function agentDigestFacts(tools: TaskTool[], limits: TaskLimits | undefined): Record<string, unknown> {
  return {
    tools: tools.map((t) => ({
      name: t.name,
      description: t.description,
      parameters: t.parameters,
      kind: t.kind,
      ...(t.command
        ? {
            command: t.command.source,
            sha256: t.command.sha256,
            timeout_ms: t.command.timeoutMs,
            max_output_bytes: t.command.maxOutputBytes,
          }
        : {}),
      ...(t.table ? { table: [...t.table.results].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)) } : {}),
    })),
    limits: limits ?? null,
  };
}
