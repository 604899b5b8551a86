// A user's regex matched 20 000 times on answer-sized texts, with the time bound (io/bounded-regex.ts) or as a bare
// RegExp: `node --import tsx bench/_regex-bound.ts bounded|plain`, timed from outside with farm-bench (A vs B).
import { boundedRegExp } from '../src/io/bounded-regex.js';

const mode = process.argv[2];
const answers = Array.from(
  { length: 100 },
  (_, i) =>
    `Let me think step by step about question ${i}. ${'The sum is computed. '.repeat(8)}ANSWER: ${i * 7}`,
);
const source = 'ANSWER: *(\\w+)';
const re = mode === 'plain' ? new RegExp(source, 'i') : boundedRegExp(source, 'i');
let found = 0;
for (let k = 0; k < 20000; k++) if (re.exec(answers[k % answers.length]) !== null) found++;
if (found !== 20000) throw new Error(`matched ${found}`);
