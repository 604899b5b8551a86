/**
 * The browser app's files: `index.html` (written here), `app.js` and `app.css` (built by esbuild from src/view/app
 * at `npm run build` into dist/app). Run from source, the app is built in memory when the viewer starts, so it
 * always serves the current code.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { IoError } from '../errors.js';

export interface AppAssets {
  js: string;
  css: string;
}

/**
 * The page: no inline script or style, only the two files beside it (relative, so an export works in a subfolder).
 * The script is a classic one, deferred (it runs once the page is parsed, as a module would): a module script is
 * refused to a page opened from file://, which then stayed blank; a classic one runs and says how to serve it.
 */
export function indexHtml(mode: 'server' | 'static'): string {
  return `<!doctype html>
<html lang="en" data-mode="${mode}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<link rel="icon" href="data:,">
<title>evalkit view</title>
<link rel="stylesheet" href="./app.css">
<script defer src="./app.js"></script>
</head>
<body>
<noscript>evalkit view needs JavaScript.</noscript>
<div id="app"></div>
</body>
</html>
`;
}

let cached: Promise<AppAssets> | undefined;

export function appAssets(): Promise<AppAssets> {
  cached ??= loadAssets();
  return cached;
}

async function loadAssets(): Promise<AppAssets> {
  const here = import.meta.url;
  if (here.endsWith('.ts')) {
    // From source (tsx): build the app now. A computed specifier keeps the CLI bundle from inlining the builder.
    const builder = new URL('../../scripts/bundle.mjs', here).href;
    const { bundleApp } = (await import(builder)) as {
      bundleApp: () => Promise<AppAssets>;
    };
    return bundleApp();
  }
  // Built: dist/bundle/cli.mjs and dist/view/assets.js both find the app in dist/app.
  const dir = fileURLToPath(new URL('../app/', here));
  const js = `${dir}app.js`;
  if (!existsSync(js)) {
    throw new IoError('view.no-app', `the view app is not built (${js} is missing): run npm run build`);
  }
  return { js: await readFile(js, 'utf8'), css: await readFile(`${dir}app.css`, 'utf8') };
}
