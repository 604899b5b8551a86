// Our EEE schemas must give the upstream schemas' verdict: on every real record, under every version, and on
// thousands of mutated variants of them. Reference data absent → skipped with a message.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { looksLikeEeeAggregate, looksLikeEeeInstance } from '../../src/formats/eee/index.js';
import { mutations } from '../helpers/mutate.js';
import { skipWithoutReference } from '../helpers/shared.js';
import {
  aggregatePairs,
  disagreement,
  instancePairs,
  realAggregates,
  realJsonl,
  versionOf,
  VERSIONS,
  type Pair,
} from './corpus.js';

const skip = skipWithoutReference('eee');

/**
 * Mutated variants per real document: many under the document's own version (where the original is valid, so a
 * mutation can flip the verdict either way), a few under each other version (where the version differences decide).
 */
const OWN_VERSION = { aggregate: 16, instance: 150 };
const OTHER_VERSION = { aggregate: 3, instance: 30 };

interface Tally {
  total: number;
  invalid: number;
  ownTotal: number;
  ownInvalid: number;
  problems: string[];
}

/** Mutates each document under every version and compares the verdicts. */
function compareMutations(
  docs: { name: string; doc: unknown }[],
  pairs: Map<string, Pair>,
  counts: { own: number; other: number },
  seedBase: number,
): Tally {
  const tally: Tally = { total: 0, invalid: 0, ownTotal: 0, ownInvalid: 0, problems: [] };
  docs.forEach((record, index) => {
    const own = versionOf(record.doc);
    VERSIONS.forEach((version, v) => {
      const pair = pairs.get(version)!;
      const isOwn = version === own;
      for (const m of mutations(record.doc, {
        seed: seedBase + index * 8 + v,
        count: isOwn ? counts.own : counts.other,
        schema: pair.upstreamSchema,
        maxStack: 2,
        // Alternate: every node equally likely (deep, long arrays dominate) / every depth equally likely.
        byDepth: index % 2 === 1,
      })) {
        const valid = pair.upstream(m.doc);
        tally.total++;
        if (!valid) tally.invalid++;
        if (isOwn) {
          tally.ownTotal++;
          if (!valid) tally.ownInvalid++;
        }
        // Only on a difference: validate again to print both error lists.
        if (pair.ours(m.doc) !== valid)
          tally.problems.push(disagreement(pair, m.doc, `${record.name} [${m.label}]`)!);
      }
    });
  });
  return tally;
}

function instanceLines() {
  return realJsonl().flatMap((f) =>
    f.lines.filter((l) => looksLikeEeeInstance(l.doc as Record<string, unknown>)),
  );
}

test('every real aggregate gets the upstream verdict under every version', { skip }, (t) => {
  const pairs = aggregatePairs();
  const records = realAggregates();
  assert.ok(records.length >= 300, `expected the real datastore records, found ${records.length}`);
  const problems: string[] = [];
  let validUnderOwnVersion = 0;
  for (const record of records) {
    for (const pair of pairs.values()) {
      const problem = disagreement(pair, record.doc, record.name);
      if (problem) problems.push(problem);
    }
    const own = pairs.get(versionOf(record.doc) ?? '');
    assert.ok(own, `${record.name}: unknown schema_version`);
    if (own.ours(record.doc)) validUnderOwnVersion++;
  }
  t.diagnostic(
    `${records.length} real aggregates x ${pairs.size} versions, ${validUnderOwnVersion} valid under their own version`,
  );
  assert.deepEqual(problems, []);
  // The corpus must exercise both verdicts across versions (a 0.2.0 record is no valid 0.3.0 record).
  assert.ok(validUnderOwnVersion > 0);
  assert.ok(records.some((r) => !pairs.get('0.3.0')!.ours(r.doc)));
});

test('every real JSONL file gets the upstream verdict line by line, under every version', { skip }, () => {
  const instances = instancePairs();
  const aggregates = aggregatePairs();
  let instanceRows = 0;
  for (const file of realJsonl()) {
    // Instance rows go to the instance schema, aggregate-looking lines to the aggregate schema; other lines
    // (the community converter's aggregate.jsonl is an index of objects, not records) to neither.
    const rows = file.lines.filter((l) => looksLikeEeeInstance(l.doc as Record<string, unknown>));
    const records = file.lines.filter((l) => looksLikeEeeAggregate(l.doc as Record<string, unknown>));
    instanceRows += rows.length;
    for (const version of VERSIONS) {
      for (const [lines, pair] of [
        [rows, instances.get(version)!],
        [records, aggregates.get(version)!],
      ] as const) {
        assert.deepEqual(
          failingOf(lines, pair, 'ours'),
          failingOf(lines, pair, 'upstream'),
          `${file.file} under ${version}`,
        );
      }
    }
  }
  assert.ok(instanceRows >= 10, `expected real instance rows, found ${instanceRows}`);
});

test(
  'the community aggregate.jsonl is an index of stored objects, each of which is a checked aggregate',
  { skip },
  () => {
    const index = realJsonl().find((f) => f.file.endsWith('community_evals_converter/aggregate.jsonl'));
    assert.ok(index, 'community index present');
    const checked = new Set(realAggregates().map((r) => r.name));
    for (const line of index.lines) {
      const entry = line.doc as Record<string, unknown>;
      // An index entry is neither EEE type, so it is rightly not validated as one …
      assert.ok(!looksLikeEeeAggregate(entry) && !looksLikeEeeInstance(entry), line.name);
      // … but the object it points at is a real aggregate, compared with upstream above.
      const object = index.file.replace(/aggregate\.jsonl$/, `datastore/${String(entry.object_path)}`);
      assert.ok(checked.has(object), `${line.name}: ${object} not among the checked records`);
    }
  },
);

function failingOf(
  lines: { name: string; doc: unknown }[],
  pair: Pair,
  which: 'upstream' | 'ours',
): string[] {
  return lines.filter((l) => !pair[which](l.doc)).map((l) => l.name);
}

test('mutated aggregates get the upstream verdict', { skip }, (t) => {
  const tally = compareMutations(
    realAggregates(),
    aggregatePairs(),
    { own: OWN_VERSION.aggregate, other: OTHER_VERSION.aggregate },
    0,
  );
  t.diagnostic(
    `${tally.total} mutated aggregates (${tally.ownTotal} under their own version, ${tally.ownInvalid} of these ` +
      `invalid), ${tally.problems.length} disagreements`,
  );
  assert.deepEqual(tally.problems.slice(0, 5), []);
  assert.ok(tally.total >= 8000, `only ${tally.total} variants`);
  // Mutations must bite: under the own version a good share turns invalid, and some stay valid.
  assert.ok(tally.ownInvalid > tally.ownTotal * 0.2 && tally.ownInvalid < tally.ownTotal * 0.95);
});

test('mutated instance rows get the upstream verdict', { skip }, (t) => {
  const tally = compareMutations(
    instanceLines(),
    instancePairs(),
    { own: OWN_VERSION.instance, other: OTHER_VERSION.instance },
    1000,
  );
  t.diagnostic(
    `${tally.total} mutated instance rows (${tally.ownTotal} under their own version, ${tally.ownInvalid} of these ` +
      `invalid), ${tally.problems.length} disagreements`,
  );
  assert.deepEqual(tally.problems.slice(0, 5), []);
  assert.ok(tally.total >= 2000, `only ${tally.total} variants`);
  assert.ok(tally.ownInvalid > tally.ownTotal * 0.2 && tally.ownInvalid < tally.ownTotal * 0.95);
});

test('detection holds on real records and survives dropping any one top-level key', { skip }, () => {
  for (const record of realAggregates()) {
    const doc = record.doc as Record<string, unknown>;
    assert.ok(looksLikeEeeAggregate(doc) && !looksLikeEeeInstance(doc), record.name);
    for (const key of Object.keys(doc)) {
      const { [key]: _dropped, ...rest } = doc;
      assert.ok(looksLikeEeeAggregate(rest) && !looksLikeEeeInstance(rest), `${record.name} without ${key}`);
    }
  }
  for (const line of instanceLines()) {
    const doc = line.doc as Record<string, unknown>;
    assert.ok(!looksLikeEeeAggregate(doc), line.name);
    for (const key of Object.keys(doc)) {
      const { [key]: _dropped, ...rest } = doc;
      assert.ok(looksLikeEeeInstance(rest) && !looksLikeEeeAggregate(rest), `${line.name} without ${key}`);
    }
  }
});
