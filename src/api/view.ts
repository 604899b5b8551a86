// evalkit/view — the web app over the store: a read-only local server (strict CSP, a token off loopback) and the
// same app as a static site.
export { startViewServer, isLoopback, type ViewServer, type ViewServerOptions } from '../view/server.js';
export { exportStaticSite, type ExportOptions as StaticExportOptions } from '../view/export.js';
