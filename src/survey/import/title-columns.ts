import type { ColumnRole, SurveyKey } from './columns.js';
import { titleRole } from './columns.js';

/**
 * Roles of a header whose columns are question titles (Google Forms, SurveyMonkey): the platform's own columns are
 * `other`; item titles resolve through the key; the first remaining column is the expertise question (the exporters
 * put it first), any later one is ignored and reported.
 */
export function titleRoles(
  header: readonly string[],
  stock: ReadonlySet<string>,
  key: SurveyKey,
  file: string,
): { roles: ColumnRole[]; ignoredColumns: string[] } {
  let expertiseSeen = false;
  const ignoredColumns: string[] = [];
  const roles = header.map((h): ColumnRole => {
    const name = h.trim();
    if (stock.has(name)) return { kind: 'other' };
    const role = titleRole(h, key, file);
    if (role) return role;
    if (!expertiseSeen && name !== '') {
      expertiseSeen = true;
      return { kind: 'expertise' };
    }
    if (name !== '') ignoredColumns.push(name);
    return { kind: 'other' };
  });
  return { roles, ignoredColumns };
}
