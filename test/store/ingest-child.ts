// A child process for the kill -9 test of ingest: ingests the paths argv[3..] into the store argv[2], printing
// each progress tick as `records rows bytesDone` so that the parent can kill it while a record is being written.
import { openStore } from '../../src/store/db.js';
import { ingestPaths } from '../../src/store/ingest.js';

const [db, ...paths] = process.argv.slice(2) as [string, ...string[]];
const store = await openStore(db, { readOnly: false });
try {
  await ingestPaths(store, paths, {
    cwd: process.cwd(),
    onProgress: (p) => process.stdout.write(`${p.records} ${p.rows} ${p.bytesDone}\n`),
  });
  process.stdout.write('done\n');
} finally {
  store.close();
}
