/**
 * A promptfoo provider's tools as an agent task's tools. promptfoo declares them in the provider's `config.tools` as
 * OpenAI function tools (`{type: function, function: {name, description, parameters}}`) or, for an `anthropic:`
 * provider, in Anthropic's shape (`{name, description, input_schema}`), or as a `file://` list of them; how evalkit runs each is said beside them in `config.evalkit.tools` (the task file's runners: `table`,
 * `command`, `builtin`), and the loop's limits in `config.evalkit.limits`. Both are checked against the task file's
 * own schema, then compiled by the task file's tool compiler, so a promptfoo agent runs exactly as a task file's
 * does. What evalkit cannot run is refused, with a code, before anything is sent: another kind of tool
 * (`promptfoo.tool-type`), JavaScript callbacks (`promptfoo.tool-callbacks`), a declared tool without a runner
 * (`promptfoo.tool-runner`).
 */
import { DataError, UsageError } from '../../errors.js';
import { isObject } from '../../io/json-value.js';
import { evalkitTaskType } from '../../formats/evalkit/index.js';
import type { TaskFile } from '../../formats/evalkit/task.js';
import { compiledValidator } from '../../validate/schemas.js';
import { explainSchemaErrors } from '../../validate/schema-errors.js';
import type { ProviderName } from '../setup.js';
import { compileTools, taskLimits, type ReadRows } from './tools.js';
import type { TaskLimits, TaskTool } from './types.js';

type Obj = Record<string, unknown>;
type ToolSpec = NonNullable<TaskFile['tools']>[number];

export interface ProviderAgent {
  tools: TaskTool[];
  limits: TaskLimits;
}

export interface ProviderToolsContext {
  /** The config's folder (tables and commands are read from it and below). */
  dir: string;
  /** `path: providers[i]`, for messages. */
  where: string;
  providerName: ProviderName;
  /** Reads a `file://` reference of the config (a tools list). */
  readRef(ref: string, what: string): unknown;
  readRows: ReadRows;
}

const RUNNER_KEYS = ['table', 'command', 'builtin', 'timeout_ms', 'max_output_bytes'];

/** The tools and limits of a provider's config, or undefined when it declares no tools. */
export function providerAgent(config: Obj, ctx: ProviderToolsContext): ProviderAgent | undefined {
  const { where } = ctx;
  const own = isObject(config.evalkit) ? config.evalkit : undefined;
  if (config.evalkit !== undefined && own === undefined)
    throw new DataError('promptfoo.evalkit-config', `${where}: config.evalkit is an object {tools, limits}`);
  const extra = Object.keys(own ?? {}).filter((k) => k !== 'tools' && k !== 'limits');
  if (extra.length > 0)
    throw new DataError(
      'promptfoo.evalkit-config',
      `${where}: config.evalkit holds tools and limits only (not ${extra.join(', ')})`,
    );
  if (config.functionToolCallbacks !== undefined)
    throw new UsageError(
      'promptfoo.tool-callbacks',
      `${where}: functionToolCallbacks are JavaScript, which evalkit does not run; say how each tool runs in config.evalkit.tools ({table: FILE} | {command: [./tool, …]} | {builtin: calculator|submit})`,
    );
  if (config.functions !== undefined)
    throw new UsageError(
      'promptfoo.tool-type',
      `${where}: config.functions (legacy function calling) is not run; declare the tools in config.tools as {type: function, function: {…}}`,
    );
  const declared = config.tools === undefined ? undefined : declaredTools(config.tools, ctx);
  if (declared === undefined && own?.tools === undefined) {
    if (own?.limits !== undefined)
      throw new DataError(
        'promptfoo.evalkit-config',
        `${where}: config.evalkit.limits apply to a provider with tools`,
      );
    return undefined;
  }
  const runners = own?.tools ?? {};
  if (!isObject(runners))
    throw new DataError(
      'promptfoo.tool-runner',
      `${where}: config.evalkit.tools maps each tool's name to how it runs ({table: FILE} | {command: [...]} | {builtin: ...})`,
    );
  const specs: ToolSpec[] = [];
  for (const tool of declared ?? []) {
    const runner = runners[tool.name];
    if (runner === undefined)
      throw new UsageError(
        'promptfoo.tool-runner',
        `${where}: tool "${tool.name}" has no runner: add config.evalkit.tools.${tool.name}: {table: FILE} | {command: [./tool, …]} | {builtin: calculator|submit}`,
      );
    specs.push({ ...tool, ...runnerOf(runner, tool.name, where) } as ToolSpec);
  }
  // A built-in needs no declaration (its parameters are evalkit's): a runner alone adds it.
  for (const [name, runner] of Object.entries(runners)) {
    if (specs.some((s) => s.name === name)) continue;
    const r = runnerOf(runner, name, where);
    if (r.builtin === undefined)
      throw new UsageError(
        'promptfoo.tool-runner',
        `${where}: config.evalkit.tools.${name} runs a tool config.tools does not declare (only a builtin needs no declaration)`,
      );
    specs.push({ name, ...r } as ToolSpec);
  }
  const limits = own?.limits ?? {};
  checkAgainstTaskSchema(specs, limits, where);
  return {
    tools: compileTools(specs, ctx.dir, () => `${where} config`, ctx.readRows),
    limits: taskLimits(limits as TaskFile['limits']),
  };
}

/** The OpenAI function tools of `config.tools` as name, description and parameters. */
function declaredTools(value: unknown, ctx: ProviderToolsContext): ({ name: string } & Obj)[] {
  const ref = typeof value === 'string' && value.startsWith('file://') ? value.slice(7) : undefined;
  const list = ref !== undefined ? ctx.readRef(ref, 'tools') : value;
  if (!Array.isArray(list))
    throw new DataError(
      'promptfoo.tool-type',
      `${ctx.where}: config.tools is a list of {type: function, function: {name, description, parameters}} (or a file:// path to one)`,
    );
  return list.map((t, i) => {
    // Anthropic's shape, as promptfoo's anthropic provider takes it: {name, description, input_schema}.
    if (
      isObject(t) &&
      (t.type === undefined || t.type === 'custom') &&
      typeof t.name === 'string' &&
      isObject(t.input_schema)
    )
      return {
        name: t.name,
        ...(t.description !== undefined ? { description: t.description } : {}),
        parameters: t.input_schema,
      };
    const fn = isObject(t) ? t.function : undefined;
    if (!isObject(t) || t.type !== 'function' || !isObject(fn) || typeof fn.name !== 'string')
      throw new UsageError(
        'promptfoo.tool-type',
        `${ctx.where}: config.tools[${i}]${isObject(t) && typeof t.type === 'string' ? ` (type ${t.type})` : ''} is not a function tool ({type: function, function: {name, …}}, or Anthropic's {name, input_schema}); evalkit runs function tools only`,
      );
    return {
      name: fn.name as string,
      ...(fn.description !== undefined ? { description: fn.description } : {}),
      ...(fn.parameters !== undefined ? { parameters: fn.parameters } : {}),
    };
  });
}

function runnerOf(runner: unknown, name: string, where: string): Obj {
  if (!isObject(runner))
    throw new DataError(
      'promptfoo.tool-runner',
      `${where}: config.evalkit.tools.${name} is {table: FILE} | {command: [./tool, …]} | {builtin: calculator|submit}`,
    );
  const odd = Object.keys(runner).filter((k) => !RUNNER_KEYS.includes(k));
  if (odd.length > 0)
    throw new DataError(
      'promptfoo.tool-runner',
      `${where}: config.evalkit.tools.${name} says how the tool runs (${RUNNER_KEYS.join(', ')}), not ${odd.join(', ')}`,
    );
  return runner;
}

/** The tools and limits under the task file's schema (the same names, kinds and bounds), every mistake named. */
function checkAgainstTaskSchema(tools: ToolSpec[], limits: unknown, where: string): void {
  const validate = compiledValidator(evalkitTaskType.versions[0]);
  const value = { name: 'promptfoo', dataset: { path: 'x' }, scorers: ['match'], tools, limits };
  if (validate(value)) return;
  const issues = explainSchemaErrors(validate.errors ?? []);
  const place = (pointer: string): string =>
    pointer
      .replace(/^\/tools\/(\d+)/, (_, i) => `tool "${tools[Number(i)]?.name}"`)
      .replace(/^\/limits/, 'config.evalkit.limits');
  throw new DataError(
    'promptfoo.tool-spec',
    issues.map((i) => `${where}: ${place(i.pointer)}: ${i.message}`).join('\n'),
  );
}
