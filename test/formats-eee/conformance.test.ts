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

/** Mutated variants per real aggregate and version, and per instance line and version. */
const AGGREGATE_MUTATIONS = 6;
const INSTANCE_MUTATIONS = 60;

function instanceLines() {
  return realJsonl().flatMap((f) =>
    f.lines.filter((l) => looksLikeEeeInstance(l.doc as Record<string, unknown>)),
  );
}

test('every real aggregate gets the upstream verdict under every version', { skip }, () => {
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

function failingOf(
  lines: { name: string; doc: unknown }[],
  pair: Pair,
  which: 'upstream' | 'ours',
): string[] {
  return lines.filter((l) => !pair[which](l.doc)).map((l) => l.name);
}

test('mutated aggregates get the upstream verdict', { skip }, () => {
  const pairs = aggregatePairs();
  const problems: string[] = [];
  let total = 0;
  let invalid = 0;
  realAggregates().forEach((record, index) => {
    VERSIONS.forEach((version, v) => {
      const pair = pairs.get(version)!;
      for (const m of mutations(record.doc, {
        seed: index * 8 + v,
        count: AGGREGATE_MUTATIONS,
        schema: pair.upstreamSchema,
        maxStack: 2,
      })) {
        total++;
        if (!pair.upstream(m.doc)) invalid++;
        const problem = disagreement(pair, m.doc, `${record.name} [${m.label}]`);
        if (problem) problems.push(problem);
      }
    });
  });
  assert.deepEqual(problems.slice(0, 5), []);
  assert.ok(total >= 8000, `only ${total} variants`);
  // Mutations must bite: a good share is invalid, and some stay valid.
  assert.ok(invalid > total * 0.3 && invalid < total, `${invalid} of ${total} invalid`);
});

test('mutated instance rows get the upstream verdict', { skip }, () => {
  const pairs = instancePairs();
  const problems: string[] = [];
  let total = 0;
  let invalid = 0;
  instanceLines().forEach((line, index) => {
    VERSIONS.forEach((version, v) => {
      const pair = pairs.get(version)!;
      for (const m of mutations(line.doc, {
        seed: 1000 + index * 8 + v,
        count: INSTANCE_MUTATIONS,
        schema: pair.upstreamSchema,
        maxStack: 2,
      })) {
        total++;
        if (!pair.upstream(m.doc)) invalid++;
        const problem = disagreement(pair, m.doc, `${line.name} [${m.label}]`);
        if (problem) problems.push(problem);
      }
    });
  });
  assert.deepEqual(problems.slice(0, 5), []);
  assert.ok(total >= 2000, `only ${total} variants`);
  assert.ok(invalid > total * 0.3 && invalid < total, `${invalid} of ${total} invalid`);
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
