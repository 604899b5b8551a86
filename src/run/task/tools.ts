/**
 * The tools of an agent task, as data: each tool of the task file compiles to a `TaskTool` (its name, description,
 * JSON Schema of the arguments and how it runs: a table of results, or a built-in). `runToolCall` is the one
 * confined runner: it parses the call's arguments, checks them against the schema and only then runs the tool. Every
 * failure — arguments that are no JSON, an unknown tool, arguments the schema refuses, a table without the row, a
 * calculator error — is an error result the model sees on its next turn and the row records, never a crash.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { DataError } from '../../errors.js';
import { canonicalJson } from '../../io/canonical.js';
import { confinedPath } from '../../io/confined-path.js';
import { isObject } from '../../io/json-value.js';
import { DEFAULT_MAX_DEPTH, parseStrictJson } from '../../io/strict-json.js';
import type { TaskFile } from '../../formats/evalkit/task.js';
import { calculate, CalculatorError } from './calculator.js';
import {
  DEFAULT_TOOL_MAX_OUTPUT_BYTES,
  DEFAULT_TOOL_TIMEOUT_MS,
  runCommand,
  type CommandContext,
  type ToolOutcome,
} from './command-tool.js';
import { compileUserSchema } from './json-answer.js';
import type { TaskLimits, TaskTool } from './types.js';

/** One tool call as the model made it: `arguments` is the JSON text it sent. */
export interface ToolCall {
  id: string;
  name: string;
  arguments: string;
}

export type { ToolOutcome } from './command-tool.js';
export type { TaskLimits, TaskTool, ToolKind } from './types.js';

export const DEFAULT_MAX_TURNS = 10;

const BUILTINS: Record<
  'calculator' | 'submit',
  { description: string; parameters: Record<string, unknown> }
> = {
  calculator: {
    description: 'Evaluates an arithmetic expression: numbers, + - * / ^ and parentheses.',
    parameters: {
      type: 'object',
      properties: { expression: { type: 'string', description: 'The expression, e.g. (2 + 3) * 4' } },
      required: ['expression'],
      additionalProperties: false,
    },
  },
  submit: {
    description: 'Submits the final answer and ends the task.',
    parameters: {
      type: 'object',
      properties: { answer: { type: 'string', description: 'The final answer.' } },
      required: ['answer'],
      additionalProperties: false,
    },
  },
};

type ToolSpec = NonNullable<TaskFile['tools']>[number];

/** The task file's tools, compiled; `where(pointer)` locates a value of the task file for messages. */
/** Reads a table tool's JSONL file into rows, each with where it is (load.ts's `readDataset`). */
export type ReadRows = (path: string) => { row: Record<string, unknown>; where: string }[];

export function compileTools(
  specs: ToolSpec[],
  dir: string,
  where: (pointer: string) => string,
  readRows: ReadRows,
): TaskTool[] {
  const tools: TaskTool[] = [];
  specs.forEach((spec, i) => {
    const pointer = `/tools/${i}`;
    const at = `${where(pointer)} (at ${pointer})`;
    const fail = (code: string, message: string, key = ''): never => {
      throw new DataError(code, `${where(pointer + key)} error ${code} ${message} (at ${pointer + key})`);
    };
    if (tools.some((t) => t.name === spec.name))
      fail('task.duplicate-tool', `two tools are named "${spec.name}"`, '/name');
    const kinds = [spec.table, spec.command, spec.builtin].filter((k) => k !== undefined).length;
    if (kinds !== 1)
      fail('task.tool-kind', `tool "${spec.name}" needs exactly one of table, command or builtin`);
    if (spec.command === undefined && (spec.timeout_ms !== undefined || spec.max_output_bytes !== undefined))
      fail('task.tool-kind', `tool "${spec.name}": timeout_ms and max_output_bytes bound a command tool`);
    if (spec.builtin !== undefined && spec.parameters !== undefined)
      fail(
        'task.tool-parameters',
        `the built-in ${spec.builtin} has its own parameters; leave parameters out`,
        '/parameters',
      );
    const builtin = spec.builtin !== undefined ? BUILTINS[spec.builtin] : undefined;
    const parameters = builtin?.parameters ?? spec.parameters ?? { type: 'object' };
    if (parameters.type !== 'object')
      fail(
        'task.tool-parameters',
        `tool "${spec.name}": parameters must be an object schema (type: object)`,
        '/parameters',
      );
    let validate: TaskTool['validate'];
    try {
      validate = compileUserSchema(parameters) as TaskTool['validate'];
    } catch (error) {
      return fail(
        'task.tool-parameters',
        `tool "${spec.name}": parameters is not a usable JSON Schema: ${(error as Error).message}`,
        '/parameters',
      );
    }
    const tool: TaskTool = {
      name: spec.name,
      description: spec.description ?? builtin?.description ?? '',
      parameters,
      kind: spec.builtin ?? (spec.command !== undefined ? 'command' : 'table'),
      validate,
    };
    if (spec.table !== undefined) {
      const path = confinedPath(
        dir,
        spec.table,
        `${at} the table of tool "${spec.name}"`,
        'task.file-outside',
      );
      const results = new Map<string, unknown>();
      for (const { row, where: rowAt } of readRows(path)) {
        if (!isObject(row.arguments) || !('result' in row))
          throw new DataError(
            'task.tool-table',
            `${rowAt} error task.tool-table a table row is {"arguments": {...}, "result": ...}`,
          );
        results.set(canonicalJson(row.arguments), row.result);
      }
      tool.table = { source: spec.table, results };
    }
    if (spec.command !== undefined) {
      // The executable is the user's own, in the task's folder: never a name looked up on PATH.
      const file = confinedPath(
        dir,
        spec.command[0],
        `${at} the command of tool "${spec.name}"`,
        'task.file-outside',
      );
      tool.command = {
        source: spec.command,
        // What the executable is (a changed script changes the task's digest, so its journal is not resumed).
        sha256: fileSha256(file),
        argv: [file, ...spec.command.slice(1)],
        timeoutMs: spec.timeout_ms ?? DEFAULT_TOOL_TIMEOUT_MS,
        maxOutputBytes: spec.max_output_bytes ?? DEFAULT_TOOL_MAX_OUTPUT_BYTES,
      };
    }
    tools.push(tool);
  });
  return tools;
}

/** The sha256 of a regular file, or null when there is none to read (the call then fails as the tool's result). */
function fileSha256(path: string): string | null {
  try {
    return createHash('sha256').update(readFileSync(path)).digest('hex');
  } catch {
    return null;
  }
}

/** The limits of the task file with their defaults. */
export function taskLimits(spec: TaskFile['limits']): TaskLimits {
  return {
    max_turns: spec?.max_turns ?? DEFAULT_MAX_TURNS,
    ...(spec?.max_tool_calls !== undefined ? { max_tool_calls: spec.max_tool_calls } : {}),
    ...(spec?.token_limit !== undefined ? { token_limit: spec.token_limit } : {}),
    ...(spec?.time_limit_s !== undefined ? { time_limit_s: spec.time_limit_s } : {}),
    ...(spec?.cost_limit_usd !== undefined ? { cost_limit_usd: spec.cost_limit_usd } : {}),
  };
}

/** A call's arguments as the model sent them, parsed (an object), or why they are not usable. */
export function parseArguments(
  text: string,
): { ok: true; value: Record<string, unknown> } | { ok: false; why: string } {
  const parsed = parseStrictJson(text.trim() === '' ? '{}' : text, { maxDepth: DEFAULT_MAX_DEPTH });
  if (!parsed.ok) return { ok: false, why: parsed.issues[0]?.message ?? 'not JSON' };
  if (!isObject(parsed.value)) return { ok: false, why: 'the arguments are not a JSON object' };
  return { ok: true, value: parsed.value };
}

const errorResult = (code: string, message: string): ToolOutcome => ({
  content: `error: ${message}`,
  error: code,
});

/** What a command tool runs with: the sample's folder (made on first use), its environment, the run's signal. */
export interface ToolRunContext {
  cwd(): Promise<string>;
  env: NodeJS.ProcessEnv;
  signal?: AbortSignal;
}

/** Runs one call: arguments parsed and checked against the tool's parameters first; any failure an error result. */
export async function runToolCall(
  tools: readonly TaskTool[],
  call: ToolCall,
  context?: ToolRunContext,
): Promise<ToolOutcome> {
  const tool = tools.find((t) => t.name === call.name);
  if (tool === undefined)
    return errorResult(
      'tool.unknown',
      `unknown tool "${call.name}"; the tools are ${tools.map((t) => t.name).join(', ')}`,
    );
  const args = parseArguments(call.arguments);
  if (!args.ok)
    return errorResult('tool.bad-json', `the arguments of ${tool.name} are not valid JSON: ${args.why}`);
  let valid: boolean;
  try {
    valid = tool.validate(args.value);
  } catch (error) {
    if (error instanceof DataError) return errorResult(error.code, error.message);
    throw error;
  }
  if (!valid) {
    const why = (tool.validate.errors ?? [])
      .map((e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'}`)
      .join('; ');
    return errorResult(
      'tool.bad-arguments',
      `the arguments of ${tool.name} do not match its parameters: ${why}`,
    );
  }
  switch (tool.kind) {
    case 'submit':
      return { content: 'submitted', submitted: String(args.value.answer) };
    case 'calculator':
      try {
        return { content: String(calculate(String(args.value.expression))) };
      } catch (error) {
        if (error instanceof CalculatorError)
          return errorResult('tool.failed', `calculator: ${error.message}`);
        throw error;
      }
    case 'command': {
      if (context === undefined) return errorResult('tool.failed', `${tool.name} cannot run here`);
      const run: CommandContext = { cwd: await context.cwd(), env: context.env, signal: context.signal };
      return runCommand(tool.command!, JSON.stringify(args.value), run);
    }
    case 'table': {
      const key = canonicalJson(args.value);
      if (!tool.table!.results.has(key))
        return errorResult('tool.no-result', `${tool.name} has no result for the arguments ${key}`);
      const result = tool.table!.results.get(key);
      return { content: typeof result === 'string' ? result : JSON.stringify(result) };
    }
  }
}

/** The tools as a request names them (each provider sends them in its own wire form). */
export function toolDeclarations(tools: readonly TaskTool[]) {
  return tools.map((t) => ({ name: t.name, description: t.description, parameters: t.parameters }));
}
