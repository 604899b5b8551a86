/**
 * The store's statistics as the viewer calls them: `leaderboards` (store/leaderboard.ts), `compareModels` and
 * `disagreements` (store/compare.ts) — the functions behind `evalkit leaderboard` and `evalkit compare` — and the
 * check, at compile time, that what they return is what the pages read (shared/types.ts).
 */
import { leaderboards } from '../store/leaderboard.js';
import { compareModels, disagreements, type CompareReport, type Disagreements } from '../store/compare.js';
import type { CompareResult, Disagreements as PageDisagreements, Leaderboards } from './shared/types.js';

export { compareModels, disagreements, leaderboards };

// The pages' types must accept the library's values (a compile error here means a page reads a field that the
// library no longer gives).
export const asPageLeaderboards = (x: Awaited<ReturnType<typeof leaderboards>>): Leaderboards => x;
export const asPageComparison = (x: CompareReport): CompareResult => x;
export const asPageDisagreements = (x: Disagreements): PageDisagreements => x;
