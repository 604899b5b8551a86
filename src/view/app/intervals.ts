// How a result's 95% interval is named on the pages: its method (store/result-interval.ts) and whether an end was
// set to the metric's bound.

const METHOD_NAMES: Record<string, string> = {
  wilson: 'Wilson',
  clt: 'normal (CLT)',
  record: "record's CI",
  'record-se': "record's SE",
};

/** "Wilson", "normal (CLT), clipped", …; '' without a method. */
export function ciMethodLabel(method: string | null | undefined, clipped?: boolean): string {
  if (!method) return '';
  return `${METHOD_NAMES[method] ?? method}${clipped ? ', clipped' : ''}`;
}

/** What each method means, for a title attribute. */
export const CI_METHOD_HELP =
  'Wilson: score interval of the 0/1 samples of a metric on [0, 1]. Normal (CLT): mean ± 1.96·sd/√n of the samples (epochs of a ' +
  "sample reduced first). Record's CI / SE: the record's own interval, or ± 1.96 of its standard error. " +
  "Clipped: an end was set to the metric's bound.";

/** The words shown beside a ranking whose metric direction the converter guessed. */
export const DIRECTION_ASSUMED =
  'direction assumed: the source did not declare whether higher or lower is better, so this ranking may be reversed';

/** Why a result of a run that did not finish is marked, and why its zero-width interval is not shown. */
export const RUN_UNFINISHED =
  'the run did not finish: its result covers only the samples it got through, and a zero-width interval from it ' +
  'is not a measurement';
