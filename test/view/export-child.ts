// A child process for the kill -9 tests: exports the store argv[2] to the folder argv[3], printing the count of
// files written after each one so that the parent can kill it at a chosen point.
import { openStore } from '../../src/store/db.js';
import { exportStaticSite } from '../../src/view/export.js';

const [db, dir] = process.argv.slice(2) as [string, string];
const store = await openStore(db, { readOnly: true });
try {
  await exportStaticSite(store, dir, { onFile: (n) => process.stdout.write(`${n}\n`) });
  process.stdout.write('done\n');
} finally {
  store.close();
}
