// The task model and engine of `evalkit run` (a second front end of the run engine; see engine.ts).
export * from './types.js';
export { loadTask, readTaskFile, readDataset, samplesOf, taskDigest } from './load.js';
export { buildMessages, promptText, DEFAULT_USER_TEMPLATE, DEFAULT_CHOICE_TEMPLATE } from './prompt.js';
export { renderTemplate, templateValues, letteredChoices, choiceLetter } from './template.js';
export {
  SCORERS,
  scorerDefinition,
  normalizeAnswer,
  numbersIn,
  choiceIn,
  jsonIn,
  gradeOf,
  defaultJudgeTemplate,
  DEFAULT_GRADES,
  type ScorerDefinition,
} from './scorers.js';
export { reduceEpochs, reducerLabel, passAtK, itemStatistics, type ItemStatistics } from './reduce.js';
export * from './engine.js';
export {
  isPromptfooConfig,
  loadPromptfooConfig,
  type PromptfooTask,
  type PromptfooTarget,
} from './promptfoo.js';
export { calculate, CalculatorError } from './calculator.js';
export {
  compileTools,
  runToolCall,
  type TaskTool,
  type ToolCall,
  type ToolOutcome,
  type TaskLimits,
} from './tools.js';
export { agentLoop, trajectoryOf, type AgentTrace, type StopReason } from './agent.js';
