#!/usr/bin/env node
// Thin launcher: the compiled CLI lives in dist/ (npm run build).
import { main } from '../dist/cli/main.js';

main(process.argv).then((code) => {
  process.exitCode = code;
});
