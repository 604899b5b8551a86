// evalkit/run — running an infereval benchmark against a model: providers, retries, journal, sweeps, EEE output.
export {
  runEvaluation,
  sampleConfigHash,
  DEFAULT_MAX_CONSECUTIVE_FAILURES,
  type RunOptions,
  type RunConfig,
  type RunSummary,
  type RunProgress,
  type DecodingParams,
} from '../run/runner.js';
export { runSweep, parseSweepValues, type SweepOptions } from '../run/sweep.js';
export { createProvider, loadBenchmarkForRun, PROVIDERS, type ProviderSetup } from '../run/setup.js';
export {
  ProviderError,
  type Provider,
  type Completion,
  type CompletionRequest,
  type CompletionUsage,
} from '../run/providers/provider.js';
export { createOpenAIProvider } from '../run/providers/openai.js';
export { createAnthropicProvider } from '../run/providers/anthropic.js';
export { createReplayProvider, recordingProvider } from '../run/providers/replay.js';
export { DEFAULT_MAX_RESPONSE_BYTES } from '../io/net/http-fetch.js';
export { withRetry, DEFAULT_RETRY, type RetryPolicy } from '../io/net/retry.js';
export { createRedactor, type Redactor } from '../io/net/redact.js';
export { redactingProvider } from '../run/redact.js';
export { planPrompts, type PromptOptions } from '../formats/infereval/prompts.js';
export { parseVerdict, parseCoherence } from '../run/parse.js';
export { journalPathFor } from '../run/journal.js';
export { openRunLog, type RunLog } from '../run/run-log.js';
export { writeEeeRun, type EeeRunInput, type EeeRunOutput } from '../convert/eee-run.js';
