/**
 * Qualtrics Survey Format (`.qsf`, JSON), imported in Qualtrics with Create project → Survey → From a file. The
 * survey: an expertise text question (DataExportTag `expertise`), then per item a required multiple-choice question
 * whose DataExportTag is the item's tag and, with rationales, a text question tagged `<tag>_rationale`. The response
 * CSV then has one column per tag, which `survey import --from qualtrics-csv` reads.
 *
 * Where this differs from the infereval reference's `.qsf`, on purpose:
 * - Each item is its own block and the survey flow randomises the blocks (a BlockRandomizer), so an item's rationale
 *   question always follows its own verdict question; the reference shuffled all questions of one block, which can
 *   separate the two.
 * - Question texts are HTML (Qualtrics renders QuestionText as HTML): item texts are escaped and line breaks become
 *   `<br>`, where the reference passed raw text (its line breaks vanished and `<` in an item was markup).
 */
import type { SurveyPlan } from '../render.js';

export interface QsfOptions {
  title: string;
  expertisePrompt: string;
  includeRationales: boolean;
  randomizeItems: boolean;
}

const SURVEY_ID = 'SV_evalkit';

/** Text as Qualtrics question HTML: escaped, line breaks as <br>. */
export function qualtricsHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/\r?\n/g, '<br>');
}

type Obj = Record<string, unknown>;

function question(
  qid: string,
  label: string,
  html: string,
  tag: string,
  choices: readonly string[] | null,
  required: boolean,
): Obj {
  const common = {
    QuestionText: html,
    DataExportTag: tag,
    QuestionID: qid,
    QuestionDescription: label,
    Configuration: { QuestionDescriptionOption: 'UseText' },
    Validation: { Settings: { ForceResponse: required ? 'ON' : 'OFF', Type: 'None' } },
    Language: [],
    DataVisibility: { Private: false, Hidden: false },
  };
  const payload: Obj =
    choices === null
      ? { ...common, QuestionType: 'TE', Selector: 'ESTB', DefaultChoices: false }
      : {
          ...common,
          QuestionType: 'MC',
          Selector: 'SAVR',
          SubSelector: 'TX',
          Choices: Object.fromEntries(choices.map((c, i) => [String(i + 1), { Display: c }])),
          ChoiceOrder: choices.map((_c, i) => String(i + 1)),
          NextChoiceId: choices.length + 1,
          NextAnswerId: 1,
        };
  return {
    SurveyID: SURVEY_ID,
    Element: 'SQ',
    PrimaryAttribute: qid,
    SecondaryAttribute: label,
    TertiaryAttribute: null,
    Payload: payload,
  };
}

export function qualtricsSurvey(plan: SurveyPlan, options: QsfOptions): Obj {
  const questions: Obj[] = [
    question('QID1', 'Expertise', qualtricsHtml(options.expertisePrompt), 'expertise', null, false),
  ];
  const blocks: Obj[] = [
    {
      Type: 'Default',
      Description: 'Expertise',
      ID: 'BL_expertise',
      BlockElements: [{ Type: 'Question', QuestionID: 'QID1' }],
    },
  ];
  let next = 2;
  for (const q of plan.questions) {
    const verdictQid = `QID${next++}`;
    questions.push(
      question(
        verdictQid,
        `Verdict on ${q.itemId}`,
        qualtricsHtml(`${q.header}\n\n${q.body}`),
        q.tag,
        q.choices,
        true,
      ),
    );
    const elements: Obj[] = [{ Type: 'Question', QuestionID: verdictQid }];
    if (options.includeRationales) {
      const rationaleQid = `QID${next++}`;
      questions.push(
        question(
          rationaleQid,
          `Rationale on ${q.itemId}`,
          qualtricsHtml(plan.rationalePrompt),
          `${q.tag}_rationale`,
          null,
          false,
        ),
      );
      elements.push({ Type: 'Question', QuestionID: rationaleQid });
    }
    blocks.push({
      Type: 'Standard',
      Description: `Item ${q.number}: ${q.itemId}`,
      ID: `BL_item_${q.number}`,
      BlockElements: elements,
    });
  }
  let flowId = 1;
  const flowBlock = (id: unknown): Obj => ({ Type: 'Block', ID: id, FlowID: `FL_${++flowId}` });
  const itemFlow = blocks.slice(1).map((b) => flowBlock(b.ID));
  const flow: Obj[] = [flowBlock('BL_expertise')];
  if (options.randomizeItems && itemFlow.length > 1)
    flow.push({
      Type: 'BlockRandomizer',
      FlowID: `FL_${++flowId}`,
      SubSet: itemFlow.length,
      EvenPresentation: false,
      Flow: itemFlow,
    });
  else flow.push(...itemFlow);
  return {
    SurveyEntry: {
      SurveyID: SURVEY_ID,
      SurveyName: options.title,
      SurveyDescription: `evalkit survey export: ${plan.questions.length} items of ${plan.benchmarkId}, ${plan.questionForm} question, frame ${plan.frameId}`,
      SurveyLanguage: 'EN',
      SurveyStatus: 'Inactive',
      SurveyActiveResponseSet: 'RS_default',
    },
    SurveyElements: [
      {
        SurveyID: SURVEY_ID,
        Element: 'BL',
        PrimaryAttribute: 'Survey Blocks',
        SecondaryAttribute: null,
        TertiaryAttribute: null,
        Payload: blocks,
      },
      {
        SurveyID: SURVEY_ID,
        Element: 'FL',
        PrimaryAttribute: 'Survey Flow',
        SecondaryAttribute: null,
        TertiaryAttribute: null,
        Payload: { Type: 'Root', FlowID: 'FL_1', Flow: flow, Properties: { Count: flowId } },
      },
      ...questions,
    ],
  };
}
