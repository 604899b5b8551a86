/**
 * The options of a run, declared once: each entry is one key of the library's `RunOptions` (the compiler holds the
 * table and the type to the same keys), with its flag, help, parser, default and choices. `evaluate` and `sweep`
 * add them from here; the docs' option tables are generated from what this builds.
 */
import { Option, type Command } from 'commander';
import { BUILTIN_COHERENCE_FRAMES } from '../formats/infereval/coherence-frames.js';
import { DEFAULT_MAX_RESPONSE_BYTES } from '../io/net/http-fetch.js';
import { DEFAULT_RETRY } from '../io/net/retry.js';
import { DEFAULT_MAX_CONSECUTIVE_FAILURES } from '../run/runner.js';
import type { RunOptions } from '../run/settings.js';
import { PROVIDERS } from '../run/setup.js';
import { MAX_N_SAMPLES, MAX_TEMPERATURE } from '../run/sweep.js';
import { intArg, numberArg } from './options.js';

interface OptionSpec {
  flags: string;
  description: string;
  parse?: (value: string, previous: any) => unknown;
  default?: unknown;
  choices?: readonly string[];
  mandatory?: boolean;
  /** A `--no-…` flag that sets the same key to false. */
  negation?: { flags: string; description: string };
}

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

export const RUN_OPTIONS = {
  provider: {
    flags: '--provider <name>',
    description:
      'model provider; openrouter = the OpenAI-compatible client at https://openrouter.ai/api/v1 with OPENROUTER_API_KEY',
    choices: PROVIDERS,
    mandatory: true,
  },
  model: {
    flags: '--model <id>',
    description: 'model id as the provider names it (with replay: the model the fixture was recorded with)',
  },
  baseUrl: {
    flags: '--base-url <url>',
    description:
      'API base URL: any OpenAI-compatible server (vLLM, Ollama, llama.cpp, OpenRouter) or an Anthropic-compatible one',
  },
  httpReferer: {
    flags: '--http-referer <url>',
    description: 'OpenRouter attribution: the HTTP-Referer header (openai, openrouter)',
  },
  xTitle: {
    flags: '--x-title <title>',
    description: 'OpenRouter attribution: the X-Title header (openai, openrouter)',
  },
  apiKeyEnv: {
    flags: '--api-key-env <name>',
    description:
      'environment variable holding the API key (default OPENAI_API_KEY or ANTHROPIC_API_KEY); keys are never written anywhere',
  },
  nSamples: {
    flags: '--n-samples <n>',
    description: 'completions drawn per item (majority-voted)',
    parse: intArg('--n-samples', 1, MAX_N_SAMPLES),
    default: 5,
  },
  temperature: {
    flags: '--temperature <t>',
    description: 'sampling temperature',
    parse: numberArg('--temperature', 0, MAX_TEMPERATURE),
    default: 1.0,
  },
  maxTokens: {
    flags: '--max-tokens <n>',
    description: 'completion token budget (max_completion_tokens for OpenAI reasoning models)',
    parse: intArg('--max-tokens', 1),
    default: 1024,
  },
  topP: { flags: '--top-p <p>', description: 'nucleus sampling', parse: numberArg('--top-p', 0, 1) },
  seed: {
    flags: '--seed <n>',
    description:
      'sampling seed: sent to OpenAI-compatible servers and OpenRouter; Anthropic has none (recorded in the η, not sent, with a warning)',
    parse: intArg('--seed', 0),
  },
  stop: { flags: '--stop <text>', description: 'stop sequence (repeatable)', parse: collect },
  tieBreak: {
    flags: '--tie-break <rule>',
    description: 'how a good/bad tie is resolved',
    choices: ['abstain', 'good', 'bad', 'first'],
    default: 'abstain',
  },
  questionForm: {
    flags: '--question-form <form>',
    description:
      'support: "does the conclusion follow?"; coherence: "is committing to Γ and denying Δ coherent?"',
    choices: ['support', 'coherence'],
    default: 'support',
  },
  coherenceFrame: {
    flags: '--coherence-frame <id>',
    description: `coherence frame: the system prompt of the coherence form (default: the benchmark's coherence_frame_id, else thin-v1). Built-in: ${BUILTIN_COHERENCE_FRAMES.map((f) => `${f.id} (${f.summary})`).join('; ')}`,
  },
  paraphraseVariant: {
    flags: '--paraphrase-variant <k>',
    description: 'bearer wording: 0 = expression, k ≥ 1 = paraphrases[k-1]',
    parse: intArg('--paraphrase-variant', 0),
    default: 0,
  },
  paraphraseCycle: {
    flags: '--paraphrase-cycle',
    description: 'run every paraphrase variant in turn, one η per variant (ETA.v<k>.json)',
  },
  stripTex: {
    flags: '--strip-tex',
    description: 'replace $…$ spans by their content',
    default: true,
    negation: { flags: '--no-strip-tex', description: 'keep $…$ TeX delimiters in the prompts' },
  },
  concurrency: {
    flags: '--concurrency <n>',
    description: 'requests in flight at once',
    parse: intArg('--concurrency', 1),
    default: 8,
  },
  rateLimit: {
    flags: '--rate-limit <rps>',
    description: 'at most this many requests started per second',
    parse: numberArg('--rate-limit', 0.001),
  },
  maxAttempts: {
    flags: '--max-attempts <n>',
    description: 'attempts per sample for transient failures (429, 5xx, 529, timeouts, dropped connections)',
    parse: intArg('--max-attempts', 1),
    default: DEFAULT_RETRY.maxAttempts,
  },
  timeoutMs: {
    flags: '--timeout-ms <ms>',
    description: 'per-attempt timeout',
    parse: intArg('--timeout-ms', 1),
    default: DEFAULT_RETRY.timeoutMs,
  },
  retryBaseMs: {
    flags: '--retry-base-ms <ms>',
    description: 'first backoff delay; doubles per retry, with jitter (Retry-After wins when sent)',
    parse: intArg('--retry-base-ms', 0),
    default: DEFAULT_RETRY.baseDelayMs,
  },
  maxRetryAfterMs: {
    flags: '--max-retry-after-ms <ms>',
    description:
      "the longest wait a server's Retry-After is honoured for (a longer one is cut, and the run log says so)",
    parse: intArg('--max-retry-after-ms', 0),
    default: DEFAULT_RETRY.maxRetryAfterMs,
  },
  maxResponseBytes: {
    flags: '--max-response-bytes <n>',
    description: 'largest response body read; a longer one fails the sample (response-too-large)',
    parse: intArg('--max-response-bytes', 1024),
    default: DEFAULT_MAX_RESPONSE_BYTES,
  },
  maxConsecutiveFailures: {
    flags: '--max-consecutive-failures <n>',
    description:
      'stop the run after N samples in a row failed the same way (dead server, wrong key, stale fixture); 0 never stops',
    parse: intArg('--max-consecutive-failures', 0),
    default: DEFAULT_MAX_CONSECUTIVE_FAILURES,
  },
  retryFailed: {
    flags: '--retry-failed',
    description: 'when resuming, send again the samples that failed in the earlier run',
  },
  record: {
    flags: '--record <fixture>',
    description: 'append every successful call to a replay fixture (JSONL)',
  },
  replayFrom: {
    flags: '--replay-from <fixture>',
    description: 'answer from a recorded fixture instead of calling a provider',
  },
  runId: {
    flags: '--run-id <id>',
    description: 'the η id (default: a new UUID; a resumed run keeps its own)',
  },
} satisfies Record<keyof RunOptions, OptionSpec>;

/**
 * Adds the run options to a command (evaluate and sweep share them; `run` takes the ones it names); those in
 * `optional` are not mandatory even where the spec makes them so.
 */
export function addRunOptions(
  cmd: Command,
  only?: readonly (keyof RunOptions)[],
  optional: readonly (keyof RunOptions)[] = [],
): Command {
  for (const [key, spec] of Object.entries(RUN_OPTIONS) as [string, OptionSpec][]) {
    if (only !== undefined && !only.includes(key as keyof RunOptions)) continue;
    const option = new Option(spec.flags, spec.description);
    if (spec.choices) option.choices(spec.choices);
    if (spec.parse) option.argParser(spec.parse as (value: string, previous: unknown) => unknown);
    if (spec.default !== undefined) option.default(spec.default);
    if (spec.mandatory && !optional.includes(key as keyof RunOptions)) option.makeOptionMandatory();
    if (option.attributeName() !== key)
      throw new Error(`run option ${spec.flags} is read as ${option.attributeName()}, not ${key}`);
    cmd.addOption(option);
    if (spec.negation) cmd.addOption(new Option(spec.negation.flags, spec.negation.description));
  }
  return cmd;
}
