/**
 * Every code the cross-file checks emit, in one table: what it means and how to fix it. Messages are built from
 * the finding plus this fix-it text, so a code always says the same thing and the docs list them from here.
 */
export interface CheckCode {
  /** Which of the EEE spec's ten integrity checks (or other family check) this belongs to. */
  check: string;
  title: string;
  fix: string;
}

export const CHECK_CODES = {
  'eee.strict-json': {
    check: '1 strict JSON',
    title: 'a line of a samples file is not strict JSON',
    fix: 'rewrite the line as one JSON object (no duplicate keys, no NaN/Infinity, no numbers that overflow)',
  },
  'eee.layout': {
    check: '2 layout',
    title: 'the file is not where the datastore layout puts it',
    fix: 'move it to data/<collection>/<developer>/<model>/<uuid4>.json (samples: <uuid4>_samples.jsonl, lowercase UUID4); `evalkit migrate --layout` does this',
  },
  'eee.portable-name': {
    check: '2 portable names',
    title: 'a path part is not portable across file systems',
    fix: 'rename the part: no empty, "." or ".." parts, backslashes, <>:"|?*, control characters, trailing dot or space, or Windows reserved names (CON, PRN, AUX, NUL, COM1-9, LPT1-9)',
  },
  'eee.companion-unreferenced': {
    check: '3 companion pairing',
    title: 'the aggregate has a samples file beside it but does not point at it',
    fix: 'set detailed_evaluation_results {format: "jsonl", file_path: "data/…/<uuid>_samples.jsonl"} to the sibling file',
  },
  'eee.companion-mismatch': {
    check: '3 companion pairing',
    title: 'detailed_evaluation_results points somewhere other than the sibling samples file',
    fix: 'make file_path name exactly the sibling <uuid>_samples.jsonl (relative to the datastore root) and set format to "jsonl"',
  },
  'eee.companion-missing': {
    check: '3 companion pairing',
    title: 'the samples file named by detailed_evaluation_results does not exist',
    fix: 'add the samples file, or correct file_path',
  },
  'eee.companion-orphan': {
    check: '3 companion pairing',
    title: 'a samples file has no aggregate record pointing back at it',
    fix: 'add <uuid>.json beside it whose detailed_evaluation_results.file_path names this file, or remove the file',
  },
  'eee.file-path-outside': {
    check: '3 companion pairing',
    title: 'file_path leaves the datastore root (.., absolute path or symlink); it was not followed',
    fix: 'use a path relative to the datastore root, of the form data/<collection>/<developer>/<model>/<uuid4>_samples.jsonl',
  },
  'eee.foreign-key': {
    check: '4 foreign keys',
    title: "an instance row's evaluation_id or model_id differs from its aggregate's",
    fix: "set the row's evaluation_id to the aggregate's evaluation_id and model_id to model_info.id",
  },
  'eee.total-rows': {
    check: '5 total_rows',
    title: 'total_rows differs from the number of non-blank lines of the samples file',
    fix: 'set detailed_evaluation_results.total_rows to the real row count',
  },
  'eee.checksum': {
    check: '5 checksum',
    title: 'checksum differs from the hash of the samples file',
    fix: "recompute it over the file's exact bytes (sha256sum / md5sum) and store the lowercase hex digest",
  },
  'eee.score-bounds': {
    check: '6 scores',
    title: 'score bounds are missing, malformed or reversed',
    fix: 'give continuous metrics both min_score and max_score as numbers or "Infinity"/"-Infinity", with min ≤ max',
  },
  'eee.score-not-finite': {
    check: '6 scores',
    title: 'a score or uncertainty figure is not a finite number',
    fix: 'store finite numbers; leave out a figure that could not be computed',
  },
  'eee.score-out-of-range': {
    check: '6 scores',
    title: 'the score lies outside [min_score, max_score]',
    fix: 'check the scale (a percentage stored against 0–1 bounds, or the reverse) and correct the score or the bounds',
  },
  'eee.deployment-axes': {
    check: '7 deployment axes',
    title: 'deployment_type or model_availability is missing from additional_details',
    fix: 'add deployment_type (self_deployed | externally_managed | unknown) and model_availability (open_weights | closed_weights | unknown); `evalkit migrate` adds "unknown"',
  },
  'eee.sample-hash': {
    check: '8 sample_hash',
    title: 'sample_hash matches no known recipe',
    fix: 'recompute it with `evalkit hash` (sha256 of {"raw","reference"} as sorted compact JSON)',
  },
  'eee.sample-hash-recipe': {
    check: '8 sample_hash',
    title: 'sample_hash was made with an older recipe',
    fix: 'recompute it with the canonical recipe (`evalkit hash`, or `evalkit migrate`)',
  },
  'eee.sample-id-duplicate': {
    check: '9 unique sample_id',
    title: 'a sample_id occurs more than once in the samples file',
    fix: 'give each row its own sample_id',
  },
  'eee.evaluation-result-id': {
    check: '9 evaluation_result_id',
    title: "an instance row's evaluation_result_id names no result of the aggregate",
    fix: 'use one of the aggregate evaluation_results[].evaluation_result_id values',
  },
  'eee.duplicate-record': {
    check: '10 duplicates',
    title:
      'the record duplicates another record of the tree (ignoring evaluation_id and retrieved_timestamp)',
    fix: 'remove one of the two records',
  },
  'eee.flat-index': {
    check: 'flat layout',
    title: 'a row of a flat datastore index is not well formed',
    fix: 'write the row as upstream does: benchmark, eval_schema_version, legacy_path, object_path, object_uuid, record_type, sha256 (64 hex) and size_bytes, paths relative to the datastore (`evalkit migrate --layout flat` writes the index)',
  },
  'eee.flat-missing': {
    check: 'flat layout',
    title: 'an object named by a flat datastore index does not exist',
    fix: 'add the object at the path the index names, or remove the index row',
  },
  'eee.flat-hash': {
    check: 'flat layout',
    title: "an object's sha256 differs from its index row",
    fix: 'the object was changed after it was indexed: restore it, or re-index it (`evalkit migrate --layout flat`)',
  },
  'eee.flat-size': {
    check: 'flat layout',
    title: "an object's size differs from its index row",
    fix: 'the object was changed or truncated after it was indexed: restore it, or re-index it',
  },
  'eee.flat-uuid': {
    check: 'flat layout',
    title: "an object's path does not match its object_uuid",
    fix: 'put the object at flat/objects/<uuid[0..2]>/<uuid[2..4]>/<uuid>.json (instance rows: <uuid>_samples.jsonl)',
  },
  'eee.flat-legacy-path': {
    check: 'flat layout',
    title: "an index row's legacy_path is not where the tree layout would put the record",
    fix: 'set legacy_path to data/<collection>/<developer>/<model>/<uuid>.json, the collection being the row\u2019s benchmark and the uuid its object_uuid (the same rule as the tree layout)',
  },
  'eee.flat-legacy-model': {
    check: 'flat layout',
    title:
      "an index row's legacy_path lies in another model's folder than the record's model_info.id (a warning)",
    fix: 'set legacy_path to the folder of the record’s own model (data/<collection>/<developer>/<model>/<uuid>.json, spelled as upstream does: case aside, . as -), or correct model_info.id',
  },
  'eee.flat-record-type': {
    check: 'flat layout',
    title: "an index row's record_type or eval_schema_version disagrees with the record",
    fix: 'set record_type to "aggregate" for an aggregate record and eval_schema_version to its schema_version',
  },
  'eee.flat-escape': {
    check: 'flat layout',
    title: 'an object named by a flat datastore index is a symbolic link or lies outside the datastore',
    fix: 'put the file itself at its object path: objects are the datastore\u2019s own files, never read through a link',
  },
  'eee.flat-duplicate': {
    check: 'flat layout',
    title: 'a flat datastore index names one object on several rows',
    fix: 'keep one row per record (a repeated identical row is a warning, a second row that differs an error)',
  },
  'eee.flat-collections': {
    check: 'flat layout',
    title: 'a record is indexed in two collections',
    fix: 'a record belongs to one collection: remove its row from the other collection\u2019s index',
  },
  'eee.flat-orphan': {
    check: 'flat layout',
    title: 'an object of a flat datastore is named by no index row',
    fix: 'add its row to flat/indexes/by_collection/<collection>.jsonl, or remove the object',
  },
  'bench.path-deprecated': {
    check: 'path policy',
    title: 'the benchmark output lies in a deprecated location',
    fix: 'move it to the canonical location shown (`evalkit migrate --layout` moves it)',
  },
  'bench.path-unrecognised': {
    check: 'path policy',
    title: 'the benchmark output lies outside every recognised location',
    fix: 'move it under outputs/ (outputs/<benchmark>/<run_id>.json) or benchmarks/<name>/results/',
  },
  'infereval.benchmark-hash': {
    check: 'benchmark hash',
    title: "the evaluation's benchmark_hash differs from the benchmark's",
    fix: 'the evaluation was made from another version of the benchmark: re-run it, or compare it with the benchmark it was made from',
  },
  'infereval.benchmark-id': {
    check: 'benchmark hash',
    title: "the evaluation's benchmark_id differs from the benchmark's id",
    fix: 'compare the evaluation with the benchmark it names',
  },
} as const satisfies Record<string, CheckCode>;

export type CheckCodeId = keyof typeof CHECK_CODES;

/** "<finding>; fix: <how>" — every check message ends with how to fix it. */
export function checkMessage(code: CheckCodeId, finding: string): string {
  return `${finding}; to fix: ${CHECK_CODES[code].fix}`;
}
