// Text rendering of `evalkit describe`.
import { compareCodePoints } from '../../io/canonical.js';
import type { Benchmark } from '../../formats/infereval/types.js';
import { cellName, type BenchmarkDescription, type VerdictCounts } from '../../metrics/infereval/describe.js';

const kappa = (k: number | null, why: string | undefined): string =>
  k === null ? `undefined${why ? ` (${why})` : ''}` : `${k >= 0 ? '+' : ''}${k.toFixed(4)}`;
const gba = (c: VerdictCounts): string => `good=${c.good} bad=${c.bad} abstain=${c.abstain}`;
const pad = (label: string, width = 14): string => `${label}:`.padEnd(width);

export function renderDescription(d: BenchmarkDescription): string {
  const out: string[] = [];
  const section = (title: string, lines: string[]): void => {
    if (lines.length === 0) return;
    out.push(title, ...lines, '');
  };
  out.push(`${pad('id')}${d.id}`);
  if (d.title) out.push(`${pad('title')}${d.title}`);
  if (d.domain) out.push(`${pad('domain')}${d.domain}`);
  if (d.description) out.push(`${pad('description')}${d.description}`);
  out.push(`${pad('schema')}${d.schema_version}`);
  if (d.benchmark_hash) out.push(`${pad('hash')}${d.benchmark_hash}`);
  if (d.template_id) out.push(`${pad('template')}${d.template_id}`);
  if (d.coherence_frame_id) out.push(`${pad('frame')}${d.coherence_frame_id}`);
  out.push(
    '',
    `|B| (bearers):  ${d.n_bearers}`,
    `n (items):      ${d.n_items}`,
    `m (analysts):   ${d.n_analysts}`,
    '',
  );

  section(
    'analysts (label distribution):',
    d.analysts.map(
      (a, j) =>
        `  [${j}] ${a.id}${a.display_name && a.display_name !== a.id ? ` (${a.display_name})` : ''}${a.panel ? ` panel ${a.panel}` : ''}: ${gba(a.verdicts)}`,
    ),
  );
  out.push(
    `κ_F*(β) (inter-analyst baseline): ${kappa(d.inter_analyst_fleiss, d.undefined_reasons.inter_analyst_fleiss)}`,
    '',
  );
  if (d.panels) {
    const p = d.panels;
    section(`analyst panels: ${p.panels.length} (primary = ${p.primary_panel})`, [
      ...p.panels.map((name) => {
        const members = d.analysts.filter((a) => a.panel === name).map((a) => a.id);
        return `  ${name}  ${members.join(', ')} (n=${members.length})  κ_F* = ${kappa(p.inter_analyst_fleiss_per_panel[name], d.undefined_reasons[`inter_analyst_fleiss_per_panel.${name}`])}`;
      }),
      `  cross-panel κ${p.check_panel ? `(${p.primary_panel} vs ${p.check_panel})` : ''}: ${kappa(p.cross_panel_kappa, d.undefined_reasons.cross_panel_kappa)}`,
    ]);
  }
  if (d.verification_prompt) {
    const vp = d.verification_prompt;
    section('verification prompt:', [
      ...(vp.id ? [`  id:          ${vp.id}`] : []),
      `  template:    ${vp.template.replace(/\n/g, ' | ')}`,
      `  system:      ${vp.has_system ? 'overridden' : 'default'}`,
      ...(vp.parse_regex ? [`  parse_regex: ${vp.parse_regex}`] : []),
    ]);
  }
  const w = Math.max(0, ...d.bearers.map((b) => b.id.length));
  section(
    `bearers (${d.n_bearers}):`,
    d.bearers.map(
      (b) =>
        `  ${b.id.padEnd(w)}  ${b.expression}${b.paraphrases ? ` [+${b.paraphrases} paraphrase${b.paraphrases === 1 ? '' : 's'}]` : ''}${b.ordinal_family ? ` {${b.ordinal_family}}` : ''}`,
    ),
  );
  if (d.paraphrase_variants > 1) out.push(`paraphrase variants: ${d.paraphrase_variants}`, '');

  const fd = d.factorial_design;
  if (fd) {
    const nw = Math.max(...fd.factors.map((f) => f.name.length));
    section(`factorial design (${fd.factors.length} factor${fd.factors.length === 1 ? '' : 's'}):`, [
      ...fd.factors.map(
        (f) =>
          `  ${f.name.padEnd(nw)}  ${f.levels.length} levels: [${f.levels.join(', ')}]${f.kind ? ` (${f.kind})` : ''}`,
      ),
      `  total cells:        ${fd.factors.map((f) => f.levels.length).join(' × ')} = ${fd.n_cells}`,
      `  populated cells:    ${fd.n_populated_cells} / ${fd.n_cells}`,
      `  min items per cell: ${fd.min_items_per_cell ?? 'not declared'} (checked: ${fd.required_items_per_cell})`,
      `  cells below it:     ${fd.under_populated_cells.length} / ${fd.n_cells}`,
      '  items by cell:',
      ...fd.cells.map((c) => `    (${cellName(c.levels)}): ${c.n_items}`),
    ]);
  }
  section('items by tag (verdicts of the first analyst):', [
    ...d.tags.map((t) => `  ${t.tag}: ${t.n_items}  (${gba(t.verdicts_of_first_analyst)})`),
    ...(d.tags.length && d.n_untagged_items ? [`  (untagged): ${d.n_untagged_items}`] : []),
  ]);
  section(
    d.n_rsr_targeted_items ? `RSR-targeted items: ${d.n_rsr_targeted_items} / ${d.n_items}` : '',
    d.rsr_targets.map((t) => `  ⟨{${t.X.join(',')}}, {${t.A.join(',')}}⟩: ${t.n_items}`),
  );
  section(
    d.ordinal_families.length ? `ordinal families (${d.ordinal_families.length}):` : '',
    d.ordinal_families.map((f) => `  ${f.name}: ${f.tiers.join(' < ')}`),
  );
  section(
    d.ladders.length ? `ladders (${d.ladders.length}):` : '',
    d.ladders.map(
      (l) =>
        `  ${l.ladder}: ${l.n_items} items (${Object.entries(l.variations)
          .map(([k, v]) => `${k} ${v}`)
          .join(', ')})`,
    ),
  );
  section(
    d.monotonicity_ladders.length ? 'monotonicity ladders:' : '',
    d.monotonicity_ladders.map(
      (l) =>
        `  ${l.ladder ?? '(no ladder)'} / ${l.family}${l.fixed ? ` fixed ${l.fixed}` : ''}: ${l.steps} steps`,
    ),
  );
  const rules: string[] = [];
  if (d.targets.length)
    rules.push(`  targets: ${d.targets.map((t) => `${t.target} (${t.n_items} items)`).join(', ')}`);
  if (d.copresence_rules) rules.push(`  copresence rules: ${d.copresence_rules}`);
  if (d.entailment_rules) rules.push(`  entailment rules: ${d.entailment_rules}`);
  if (d.regularities.length) rules.push(`  regularities: ${d.regularities.length}`);
  if (d.placeholder_items) rules.push(`  items with a placeholder verdict: ${d.placeholder_items}`);
  section(rules.length ? 'construction rules:' : '', rules);
  const r = d.references;
  if (r.benchmark_level || r.bearer_level || r.item_level) {
    section('references:', [
      `  benchmark-level: ${r.benchmark_level}`,
      `  bearer-level:    ${r.bearer_level} (across ${r.bearers_with_references}/${d.n_bearers} bearers)`,
      `  item-level:      ${r.item_level} (across ${r.items_with_references}/${d.n_items} items)`,
      ...r.first_citations.map((c) => `    - ${c}`),
    ]);
  }
  const c = d.construction;
  if (c.items_with_metadata) {
    section('construction provenance:', [
      `  items with metadata: ${c.items_with_metadata} / ${d.n_items}`,
      ...(Object.keys(c.authors).length
        ? [
            `  authors: ${Object.entries(c.authors)
              .map(([a, n]) => `${a}: ${n}`)
              .join(', ')}`,
          ]
        : []),
      ...(c.authored_on
        ? [
            `  authored_on: ${c.authored_on.first}${c.authored_on.last !== c.authored_on.first ? ` to ${c.authored_on.last}` : ''}`,
          ]
        : []),
      ...(c.blinded_to_models.length ? [`  blinded to: ${c.blinded_to_models.join(', ')}`] : []),
    ]);
  }
  section(
    d.gaps.length
      ? `missing for a construct-validity claim (${d.gaps.filter((g) => g.severity === 'gap').length} gaps, ${d.gaps.filter((g) => g.severity === 'note').length} notes):`
      : 'nothing missing for a construct-validity claim that describe can check',
    d.gaps.map((g) => `  ${g.severity === 'gap' ? '✖' : '•'} ${g.message} [${g.code}]`),
  );
  return out.join('\n');
}

/** Natural order of item ids: c2 before c10. */
function naturalCompare(a: string, b: string): number {
  const split = (s: string) => s.split(/(\d+)/).map((part, i) => (i % 2 ? Number(part) : part));
  const pa = split(a);
  const pb = split(b);
  for (let i = 0; i < Math.min(pa.length, pb.length); i++) {
    if (pa[i] === pb[i]) continue;
    if (typeof pa[i] === 'number' && typeof pb[i] === 'number') return (pa[i] as number) - (pb[i] as number);
    return compareCodePoints(String(pa[i]), String(pb[i]));
  }
  return pa.length - pb.length;
}

/**
 * Every item in a form a domain expert can review (the reference's `describe --items`): bearer ids, the premises
 * (Γ) and conclusions (Δ) in words, the analysts' verdicts, tags, factor levels, provenance and references.
 */
export function renderItems(benchmark: Benchmark): string {
  const lines = [`items (${benchmark.items.length}):`, ''];
  const expression = (id: string) => benchmark.bearers[id]?.expression ?? `(unknown bearer ${id})`;
  for (const item of [...benchmark.items].sort((a, b) => naturalCompare(a.id, b.id))) {
    const verdicts = item.analyst_verdicts.join(', ');
    const tags = item.tags.length ? `   [${item.tags.join(', ')}]` : '';
    lines.push(
      `  ${item.id}  {${item.premises.join(', ')}} ⊢? {${item.conclusions.join(', ')}}  →  ${verdicts}${tags}`,
    );
    item.premises.forEach((id, i) => lines.push(`      ${i === 0 ? 'Γ:' : '  '} ${expression(id)}`));
    item.conclusions.forEach((id, i) => lines.push(`      ${i === 0 ? 'Δ:' : '  '} ${expression(id)}`));
    const levels = Object.entries(item.factor_levels ?? {});
    if (levels.length) lines.push(`      factors: ${levels.map(([f, l]) => `${f}=${l}`).join(', ')}`);
    if (item.placeholder) lines.push(`      placeholder: ${item.placeholder} (not an analyst verdict)`);
    const cm = item.construction_metadata;
    if (cm) {
      const parts = [
        [cm.authored_by, cm.authored_on].filter(Boolean).join(' on '),
        cm.authored_blind_to_models.length ? `blind to ${cm.authored_blind_to_models.join(', ')}` : '',
        cm.source ? `source: ${cm.source}` : '',
      ].filter(Boolean);
      if (parts.length) lines.push(`      construction: ${parts.join('; ')}`);
    }
    item.analyst_rationales?.forEach((r, j) => {
      if (r) lines.push(`      rationale [${benchmark.analysts[j]?.id ?? j}]: ${r}`);
    });
    item.references.forEach((r, i) =>
      lines.push(
        `      ${i + 1}. ${r.citation}${r.doi ? ` doi:${r.doi}` : ''}${r.url ? ` ${r.url}` : ''}${r.section ? ` §${r.section}` : ''}`,
      ),
    );
    lines.push('');
  }
  return lines.join('\n');
}
