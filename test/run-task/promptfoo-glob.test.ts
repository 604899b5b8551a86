// promptfoo's tool-name globs (src/run/task/promptfoo-trajectory.ts): `*` any characters, `?` one, the rest literal,
// case-insensitive, the whole name — checked against a regular expression built here on ordinary cases, and on the
// worst pattern a config can hold against the longest name a model can send (a backtracking regex never ends there).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { globMatches } from '../../src/run/task/promptfoo-trajectory.js';

const asRegex = (pattern: string): RegExp =>
  new RegExp(
    `^${[...pattern].map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[^\w]/g, '\\$&'))).join('')}$`,
    'is',
  );

test('globs match as the regular expression they stand for', () => {
  const names = [
    'weather',
    'Weather',
    'search_flights',
    'search',
    'a.b',
    'a+b',
    'x',
    '',
    'get_weather_v2',
    'aaa',
  ];
  const patterns = [
    'weather',
    'WEATHER',
    'search*',
    '*_*',
    '?',
    '',
    '*',
    'a.b',
    'a+b',
    'a?b',
    '*weather*',
    'a*a*a',
    '**',
    'get_*_v?',
  ];
  for (const name of names)
    for (const pattern of patterns)
      assert.equal(
        globMatches(name, pattern),
        asRegex(pattern).test(name),
        `${pattern} on ${JSON.stringify(name)}`,
      );
});

test('many stars against a long name end at once (no backtracking blow-up)', () => {
  const name = 'a'.repeat(5_000);
  assert.equal(globMatches(name, `${'*a'.repeat(40)}*b`), false);
  assert.equal(globMatches(`${name}b`, `${'*a'.repeat(40)}*b`), true);
});
