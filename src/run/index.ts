// The evaluation runner's public surface. Document types (Verdict, SampleRecord, …) come from formats/infereval.
export type { BenchmarkLike as RunBenchmark, BenchmarkItemLike as RunBenchmarkItem } from './types.js';
export {
  planPrompts,
  coherencePrompt,
  expressionsFor,
  paraphraseVariantCount,
  stripTex,
  DEFAULT_SYSTEM_PROMPT,
  DEFAULT_USER_TEMPLATE,
  DEFAULT_PARSE_REGEX,
  COHERENCE_PARSE_REGEX,
  type Prompt,
  type PromptOptions,
  type PromptPlan,
} from '../formats/infereval/prompts.js';
export { parseVerdict, parseCoherence, type ParsedVerdict } from './parse.js';
export { majorityVote as voteSamples } from './vote.js';
export * from './providers/provider.js';
export { createOpenAIProvider, usesMaxCompletionTokens } from './providers/openai.js';
export { createAnthropicProvider } from './providers/anthropic.js';
export { createReplayProvider, recordingProvider, replayKey } from './providers/replay.js';
export {
  withRetry,
  backoffDelay,
  DEFAULT_RETRY,
  type RetryPolicy,
  type RetryHooks,
} from '../io/net/retry.js';
export { createRateLimiter, type RateLimiter } from './rate-limit.js';
export { openJournal, journalPathFor, type OpenedJournal, type JournalHeader } from './journal.js';
export { openRunLog, type RunLog } from './run-log.js';
export * from './runner.js';
export * from './setup.js';
export * from './sweep.js';
export * from '../formats/infereval/coherence-frames.js';
