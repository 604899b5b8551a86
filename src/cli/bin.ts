// Entry point for running the CLI from source (tests, `npm run evalkit`): node --import tsx src/cli/bin.ts ...
import { main } from './main.js';

main(process.argv).then((code) => {
  process.exitCode = code;
});
