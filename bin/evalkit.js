#!/usr/bin/env node
// Thin launcher: the CLI bundle lives in dist/bundle/ (built by `npm run build`).
let cli;
try {
  cli = await import('../dist/bundle/cli.mjs');
} catch (error) {
  if (error && error.code === 'ERR_MODULE_NOT_FOUND') {
    process.stderr.write('evalkit: the CLI is not built yet: run `npm run build` (or `npm run evalkit -- …` from source)\n');
    process.exit(2);
  }
  throw error;
}
process.exitCode = await cli.main(process.argv);
