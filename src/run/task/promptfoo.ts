/**
 * A promptfoo configuration (`prompts` + `providers` + `tests`) as tasks of `evalkit run`: one task per provider
 * (its `config` decides the decoding), whose samples are every test × prompt with the same ids under every provider,
 * so they pair. Each sample carries its prompt rendered with the test's vars and its own scorers (the test's
 * assertions, defaultTest's first, and the test's pass). Every unsupported assertion type is refused, named with its
 * test, before anything is sent. A provider whose config declares tools is an agent (promptfoo-tools.ts), scored
 * also by promptfoo's trajectory assertions (promptfoo-trajectory.ts).
 */
import { createHash } from 'node:crypto';
import { basename, dirname, extname, resolve } from 'node:path';
import { parse } from 'yaml';
import { DataError, UsageError } from '../../errors.js';
import { canonicalJson } from '../../io/canonical.js';
import { confinedPath } from '../../io/confined-path.js';
import { isObject } from '../../io/json-value.js';
import { parseStrictJson } from '../../io/strict-json.js';
import type { ProviderName } from '../setup.js';
import {
  compileAssertion,
  isSupported,
  isTrajectoryAssertion,
  passScorer,
  type Assertion,
} from './promptfoo-asserts.js';
import { providerAgent } from './promptfoo-tools.js';
import { agentDigestFacts, readDataset, readText } from './load.js';
import { renderTemplate } from './template.js';
import type { ChatMessage, JudgeSpec, Task, TaskSample, TaskScorer } from './types.js';

type Obj = Record<string, unknown>;

/** A `file://` path of the config, inside the config's folder (see io/confined-path.ts). */
const configFile = (dir: string, ref: string, what: string): string =>
  confinedPath(dir, ref, what, 'promptfoo.file-outside');

/** Whether a parsed file is a promptfoo configuration (by content). */
export function isPromptfooConfig(value: unknown): boolean {
  return isObject(value) && 'prompts' in value && 'providers' in value && 'tests' in value;
}

/** A provider of the config as the run command creates it. */
export interface PromptfooTarget {
  providerName: ProviderName;
  model: string;
  baseUrl?: string;
  label: string;
}

export interface PromptfooTask {
  task: Task;
  target: PromptfooTarget;
}

function readData(path: string, what: string): unknown {
  const text = readText(path, what);
  if (extname(path) === '.jsonl')
    // Strict JSON, depth-limited as every JSON the project reads: a line nested too deep is refused, not walked.
    return text.split('\n').flatMap((line, i) => {
      if (line.trim() === '') return [];
      const parsed = parseStrictJson(line);
      const issue = parsed.ok ? undefined : parsed.issues.find((x) => x.code !== 'json.bom');
      if (issue)
        throw new DataError(
          'promptfoo.parse',
          `${path}:${i + 1}:${issue.column}: ${issue.code} ${issue.message}`,
        );
      return [parsed.value];
    });
  try {
    return parse(text);
  } catch (error) {
    throw new DataError('promptfoo.parse', `${path}: ${(error as Error).message.split('\n')[0]}`);
  }
}

const fileRef = (v: unknown): string | undefined =>
  typeof v === 'string' && v.startsWith('file://') ? v.slice('file://'.length) : undefined;

interface Prompt {
  label: string;
  /** A chat array, or one user message. */
  messages: ChatMessage[];
}

function chatOf(value: unknown, where: string): ChatMessage[] {
  if (
    !Array.isArray(value) ||
    value.some(
      (m) =>
        !isObject(m) ||
        typeof m.content !== 'string' ||
        !['system', 'user', 'assistant'].includes(m.role as string),
    )
  )
    throw new DataError(
      'promptfoo.prompt',
      `${where}: a chat prompt is a list of {role: system|user|assistant, content: string}`,
    );
  return value.map((m) => ({
    role: (m as Obj).role as ChatMessage['role'],
    content: (m as Obj).content as string,
  }));
}

/** A prompt's text: a chat array when it is a JSON list, else one user message. */
function promptOf(raw: string, label: string, where: string): Prompt {
  const trimmed = raw.trim();
  if (trimmed.startsWith('[')) {
    try {
      return { label, messages: chatOf(JSON.parse(trimmed), where) };
    } catch (error) {
      if (error instanceof DataError) throw error;
    }
  }
  return { label, messages: [{ role: 'user', content: raw }] };
}

function readPrompts(value: unknown, dir: string): Prompt[] {
  const list = Array.isArray(value) ? value : [value];
  return list.flatMap((p, i): Prompt[] => {
    const where = `prompts[${i}]`;
    const raw = isObject(p) ? (p.raw ?? p.id) : p;
    const label = isObject(p) && typeof p.label === 'string' ? p.label : undefined;
    if (typeof raw !== 'string')
      throw new DataError(
        'promptfoo.prompt',
        `${where}: a prompt is a string, a file:// path or {raw, label}`,
      );
    // promptfoo reads a prompt that names a file as that file (`file://x.txt`, or a bare `prompts.txt`).
    const file = fileRef(raw) ?? (/^[^\s{}]+\.(txt|md|json|ya?ml)$/i.test(raw) ? raw : undefined);
    if (file === undefined) return [promptOf(raw, label ?? raw, where)];
    const path = configFile(dir, file, where);
    const ext = extname(path).toLowerCase();
    if (ext === '.json' || ext === '.yaml' || ext === '.yml')
      return [
        { label: label ?? file, messages: chatOf(readData(path, 'prompt file'), `${where} (${path})`) },
      ];
    if (ext !== '.txt' && ext !== '.md' && ext !== '')
      throw new UsageError(
        'promptfoo.prompt-type',
        `${where}: ${file}: evalkit reads prompt files .txt, .md, .json and .yaml (not code)`,
      );
    // A text file holds one prompt, or several separated by a line "---".
    const parts = readText(path, 'prompt file').split(/\r?\n---\r?\n/);
    return parts.map((t, k) =>
      promptOf(t, label ?? (parts.length > 1 ? `${file}#${k + 1}` : file), `${where} (${path})`),
    );
  });
}

function readProviders(value: unknown): { id: string; label: string; config: Obj }[] {
  const list = Array.isArray(value) ? value : [value];
  return list.map((p, i) => {
    const id = typeof p === 'string' ? p : isObject(p) ? p.id : undefined;
    if (typeof id !== 'string')
      throw new DataError(
        'promptfoo.provider',
        `providers[${i}]: a provider is an id string or {id, config}`,
      );
    const config = isObject(p) && isObject(p.config) ? p.config : {};
    return { id, label: isObject(p) && typeof p.label === 'string' ? p.label : id, config };
  });
}

/** `openai:chat:M`, `openai:M`, `anthropic:messages:M` as a provider and model; anything else is refused. */
export function providerOf(id: string, where: string): { providerName: ProviderName; model: string } {
  const m = /^(openai)(?::chat)?:(.+)$/.exec(id) ?? /^(anthropic):messages:(.+)$/.exec(id);
  if (!m || /^(completion|embedding|embeddings|assistant|image|realtime|responses):/.test(m[2]))
    throw new UsageError(
      'promptfoo.provider',
      `${where}: provider "${id}" is not one evalkit runs (openai:chat:M, openai:M, anthropic:messages:M)`,
    );
  return { providerName: m[1] as ProviderName, model: m[2] };
}

interface TestCase {
  description?: string;
  vars: Obj;
  assert: Assertion[];
  threshold?: number;
  grader?: unknown;
  where: string;
}

function readTests(value: unknown, dir: string): TestCase[] {
  const file = fileRef(value) ?? (typeof value === 'string' ? value : undefined);
  const list = file !== undefined ? readData(configFile(dir, file, 'tests'), 'tests file') : value;
  if (!Array.isArray(list))
    throw new DataError('promptfoo.tests', 'tests: a list of tests, or a file:// path to one');
  return list.flatMap((t, i): TestCase[] => {
    const ref = fileRef(t);
    if (ref !== undefined) return readTests(t, dir);
    if (!isObject(t)) throw new DataError('promptfoo.tests', `tests[${i}]: a test is an object`);
    const where = `tests[${i}]${typeof t.description === 'string' ? ` "${t.description}"` : ''}`;
    return [testCase(t, where)];
  });
}

function testCase(t: Obj, where: string): TestCase {
  const assert = t.assert === undefined ? [] : t.assert;
  if (!Array.isArray(assert) || assert.some((a) => !isObject(a) || typeof a.type !== 'string'))
    throw new DataError('promptfoo.assert', `${where}: assert is a list of {type, value}`);
  const options = isObject(t.options) ? t.options : {};
  return {
    ...(typeof t.description === 'string' ? { description: t.description } : {}),
    vars: isObject(t.vars) ? t.vars : {},
    assert: assert as Assertion[],
    ...(typeof t.threshold === 'number' ? { threshold: t.threshold } : {}),
    ...(options.provider !== undefined ? { grader: options.provider } : {}),
    where,
  };
}

/** A grader provider (`openai:chat:M`, or {id}) as a judge spec. */
function judgeOf(grader: unknown, where: string): JudgeSpec {
  if (grader === undefined) return {};
  const id = typeof grader === 'string' ? grader : isObject(grader) ? grader.id : undefined;
  if (typeof id !== 'string')
    throw new DataError('promptfoo.provider', `${where}: a grader provider is an id or {id}`);
  const p = providerOf(id, where);
  const config = isObject(grader) && isObject(grader.config) ? grader.config : {};
  return {
    provider: p.providerName,
    model: p.model,
    ...(typeof config.apiBaseUrl === 'string' ? { baseUrl: config.apiBaseUrl } : {}),
  };
}

/** A var's value (a file:// var is the file's text). */
function varsOf(vars: Obj, dir: string, where: string): Obj {
  const out: Obj = {};
  for (const [k, v] of Object.entries(vars)) {
    if (Array.isArray(v))
      throw new UsageError(
        'promptfoo.vars',
        `${where}: var "${k}" is a list (promptfoo expands lists into several tests; evalkit does not — write them out)`,
      );
    const file = fileRef(v);
    out[k] = file === undefined ? v : readText(configFile(dir, file, `${where}: var ${k}`), `var ${k}`);
  }
  return out;
}

function render(template: string, vars: Obj, where: string): string {
  if (/\{%|\{\{[^}]*\|/.test(template))
    throw new UsageError(
      'promptfoo.template',
      `${where}: Nunjucks tags and filters are not supported ({{ name }} only)`,
    );
  return renderTemplate(template, vars, where);
}

/** Loads a promptfoo configuration into one task per provider. */
export function loadPromptfooConfig(configPath: string, value: unknown): PromptfooTask[] {
  const path = resolve(configPath);
  const dir = dirname(path);
  const config = value as Obj;
  const defaults = isObject(config.defaultTest) ? testCase(config.defaultTest, 'defaultTest') : undefined;
  const own = readTests(config.tests, dir);
  const tests = own.map((t) => ({
    ...t,
    vars: { ...defaults?.vars, ...t.vars },
    assert: [...(defaults?.assert ?? []), ...t.assert],
    threshold: t.threshold ?? defaults?.threshold,
    grader: t.grader ?? defaults?.grader,
  }));
  // Refuse every type evalkit does not run, before anything else (and before any request).
  const unsupported = [...(defaults ? [defaults] : []), ...own].flatMap((t) =>
    t.assert.filter((a) => !isSupported(a.type)).map((a) => `${t.where}: assertion type "${a.type}"`),
  );
  if (unsupported.length > 0)
    throw new UsageError(
      'promptfoo.unsupported-assertion',
      `${path}: evalkit does not run these assertions (nothing was sent):\n  ${unsupported.join('\n  ')}`,
    );
  const prompts = readPrompts(config.prompts, dir);
  const providers = readProviders(config.providers);
  const name =
    typeof config.description === 'string' ? config.description : basename(path).replace(/\.[^.]+$/, '');

  const union: TaskScorer[] = [];
  const samples: TaskSample[] = [];
  tests.forEach((t, ti) => {
    const vars = varsOf(t.vars, dir, t.where);
    const judge = judgeOf(t.grader, t.where);
    const seen = new Map<string, number>();
    const compiled = t.assert.map((a, k) => {
      const n = (seen.get(a.type) ?? 0) + 1;
      seen.set(a.type, n);
      const where = `${path}: ${t.where} assert[${k}] (${a.type})`;
      const c = compileAssertion(
        a,
        n === 1 ? a.type : `${a.type}#${n}`,
        (s) => render(s, vars, where),
        where,
      );
      if (c.scorer.kind === 'judge') c.scorer.judge = judge;
      return c;
    });
    const scorers: TaskScorer[] = [...compiled.map((c) => c.scorer), passScorer(compiled, t.threshold)];
    for (const s of scorers) {
      const prior = union.find((u) => u.name === s.name);
      if (prior === undefined) union.push(s);
      else if (
        prior.kind === 'judge' &&
        s.kind === 'judge' &&
        canonicalJson(prior.judge) !== canonicalJson(s.judge)
      )
        throw new UsageError(
          'promptfoo.grader',
          `${t.where}: "${s.name}" is graded by another provider than in an earlier test; evalkit uses one grader per metric`,
        );
    }
    prompts.forEach((p, pi) => {
      const where = `${path}: ${t.where} × prompt "${p.label}"`;
      const messages = p.messages.map((m) => ({ role: m.role, content: render(m.content, vars, where) }));
      const id = prompts.length === 1 ? `test-${ti + 1}` : `test-${ti + 1}.prompt-${pi + 1}`;
      samples.push({
        id,
        where,
        row: {
          ...vars,
          ...(t.description !== undefined ? { description: t.description } : {}),
          prompt: p.label,
        },
        input: [...messages].reverse().find((m) => m.role === 'user')?.content ?? '',
        targets: t.assert.map((a) =>
          typeof a.value === 'string' ? a.value : JSON.stringify(a.value ?? null),
        ),
        messages,
        scorers,
      });
    });
  });

  const trajectory = tests.flatMap((t) =>
    t.assert.filter((a) => isTrajectoryAssertion(a.type)).map((a) => `${t.where}: ${a.type}`),
  );
  return providers.map((p, i) => {
    const where = `${path}: providers[${i}]`;
    const { providerName, model } = providerOf(p.id, where);
    const c = p.config;
    const agent = providerAgent(c, {
      dir,
      where,
      providerName,
      readRef: (ref, what) => readData(configFile(dir, ref, `${where} ${what}`), `${what} file`),
      readRows: readDataset,
    });
    if (agent === undefined && trajectory.length > 0)
      throw new UsageError(
        'promptfoo.trajectory-without-tools',
        `${where}: provider "${p.id}" has no tools (config.tools), so there is no trajectory for these assertions:\n  ${trajectory.join('\n  ')}`,
      );
    const task: Task = {
      name,
      ...(typeof config.description === 'string' ? { description: config.description } : {}),
      source: path,
      dataset: { path, fields: { id: 'test', input: 'prompt', target: 'assert' } },
      samples,
      promptTemplate: JSON.stringify(prompts),
      scorers: union,
      epochs: 1,
      reducer: { name: 'mean' },
      generation: {
        temperature: typeof c.temperature === 'number' ? c.temperature : 0,
        max_tokens: typeof c.max_tokens === 'number' ? c.max_tokens : 256,
        stop: [],
      },
      ...(agent !== undefined ? { tools: agent.tools, limits: agent.limits } : {}),
      digest: '',
    };
    task.digest = createHash('sha256')
      .update(
        canonicalJson({
          prompts,
          tests,
          generation: task.generation,
          // Only a provider with tools adds them, so the digests (and journals) of other configs stay as they were.
          ...(agent !== undefined ? agentDigestFacts(agent.tools, agent.limits) : {}),
        }),
      )
      .digest('hex');
    return {
      task,
      target: {
        providerName,
        model,
        ...(typeof c.apiBaseUrl === 'string' ? { baseUrl: c.apiBaseUrl } : {}),
        label: p.label,
      },
    };
  });
}
