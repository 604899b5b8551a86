// One `query` run in its own process, so that its peak memory is its own: streamed (what `evalkit query` does) or
// materialised first (the library's runQuery, the baseline). Prints one JSON line: seconds, bytes, peak RSS in MB.
import { openStore } from '../src/store/db.js';
import { runQuery, streamQuery } from '../src/store/query.js';
import { peakRssMb } from './_peak-rss.mjs';

const [db, mode, sql] = process.argv.slice(2);
const store = await openStore(db, { readOnly: true });
const started = performance.now();
let bytes = 0;
if (mode === 'stream')
  await streamQuery(store, sql, 'csv', (text) => void (bytes += Buffer.byteLength(text)));
else {
  const result = await runQuery(store, sql);
  for (const row of result.rows) bytes += Buffer.byteLength(Object.values(row).join(',') + '\n');
}
store.close();
process.stdout.write(
  `${JSON.stringify({ seconds: (performance.now() - started) / 1000, bytes, maxRssMb: peakRssMb() })}\n`,
);
