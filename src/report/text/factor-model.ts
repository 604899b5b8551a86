// Text rendering of the factor-effects model (`evalkit model`), laid out like the reference CLI's report.
import type { FactorModelFit } from '../../metrics/infereval/factor-model.js';

export function formatP(p: number): string {
  if (Number.isNaN(p)) return 'n/a';
  const stars = p < 0.001 ? ' ***' : p < 0.01 ? ' **' : p < 0.05 ? ' *' : '';
  return p < 0.001 ? `< 0.001${stars}` : `${p.toFixed(3)}${stars}`;
}

const signed = (x: number, digits = 3): string =>
  Number.isNaN(x) ? 'n/a' : `${x >= 0 ? '+' : ''}${x.toFixed(digits)}`;

function table(header: string[], rows: string[][], right: boolean[]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]): string =>
    '  ' +
    cells
      .map((c, i) => (right[i] ? c.padStart(widths[i]) : c.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)];
}

export function renderFactorModel(fit: FactorModelFit): string {
  const d = fit.dropped;
  const lines = [
    'factor-effects model of agreement',
    '=================================',
    '',
    `evaluation:    ${fit.evaluation_id ?? '(no id)'}`,
    `benchmark:     ${fit.benchmark_id ?? '(no id)'}`,
    `reference:     ${fit.reference}`,
    `observations:  ${fit.n_observations} (after excluding ${fit.n_dropped_abstain} abstain sample(s): ${d.model_abstain} model, ${d.reference_abstain} reference${d.sample_failed ? `; and ${d.sample_failed} failed sample(s), not abstentions` : ''})`,
    `items:         ${fit.n_items} (clusters)`,
    `factors:       ${fit.n_factors} declared, ${fit.n_parameters} parameters`,
    `agreement:     ${(fit.agreement_rate * 100).toFixed(1)}% of observations`,
    `deviance:      ${fit.deviance.toFixed(3)} (null ${fit.null_deviance.toFixed(3)})`,
    `pseudo-R²:     ${fit.pseudo_r2 === null ? 'undefined' : fit.pseudo_r2.toFixed(3)} (McFadden)`,
    '',
    'Per-factor joint Wald tests:',
    ...table(
      ['factor', 'kind', 'χ²', 'df', 'p'],
      fit.factor_wald.map((w) => [
        w.factor,
        w.kind ?? '',
        w.chi2.toFixed(3),
        String(w.df),
        formatP(w.p_value),
      ]),
      [false, false, true, true, false],
    ),
    '',
    'Effects (log odds of agreement relative to the baseline level):',
  ];
  const i = fit.intercept;
  lines.push(
    ...table(
      ['factor', 'level', 'vs', 'coef', 'SE', 'z', 'p', '95% CI', 'OR'],
      [
        [
          '(intercept)',
          '',
          '',
          signed(i.coef),
          i.std_err.toFixed(3),
          signed(i.z_value, 2),
          formatP(i.p_value),
          `[${signed(i.conf_int_low, 2)}, ${signed(i.conf_int_high, 2)}]`,
          i.odds_ratio.toFixed(3),
        ],
        ...fit.effects.map((e) => [
          e.factor,
          e.level,
          e.baseline,
          signed(e.coef),
          e.std_err.toFixed(3),
          signed(e.z_value, 2),
          formatP(e.p_value),
          `[${signed(e.conf_int_low, 2)}, ${signed(e.conf_int_high, 2)}]`,
          e.odds_ratio.toFixed(3),
        ]),
      ],
      [false, false, false, true, true, true, false, false, true],
    ),
  );
  if (fit.warnings.length > 0) lines.push('', 'Warnings:', ...fit.warnings.map((w) => `  ${w}`));
  lines.push('', 'Methodology:', ...fit.notes.map((n) => `  ${n}`), '');
  return lines.join('\n');
}
