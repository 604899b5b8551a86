import type { Verdict } from '../formats/infereval/types.js';

/** One respondent's answers as read from a platform's export, keyed by benchmark item id. */
export interface SurveyRespondent {
  /** The platform's response id (Qualtrics ResponseId, SurveyMonkey respondent id, `row<N>` for Google Forms). */
  responseId: string;
  /** When the respondent started, as the platform wrote it; null when the export has no start time. */
  startedAt: string | null;
  /** False when the platform marks the response as not finished (Qualtrics Finished=False, SurveyMonkey partial). */
  finished: boolean;
  /** The answer to the survey's free-text expertise question, null when blank or absent. */
  expertise: string | null;
  /** item id → verdict, for the items the respondent answered. */
  verdicts: Map<string, Verdict>;
  /** item id → rationale, for the items with a non-blank rationale. */
  rationales: Map<string, string>;
  /** Where the response was read (`responses.csv:5`, `SurveyMonkey response 1234`), for messages. */
  origin: string;
}
