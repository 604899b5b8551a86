// evalkit/migrate — bringing older documents to the current versions (files and trees, or one document).
export { migratePaths, MIGRATION_TARGETS, type MigrateOptions, type FileReport } from '../migrate/index.js';
export { migrateEeeAggregate, migrateEeeInstanceRow, EEE_CURRENT_VERSION } from '../formats/eee/migrate.js';
export { migrateLegacyBenchOutput } from '../formats/bench-output/migrate.js';
