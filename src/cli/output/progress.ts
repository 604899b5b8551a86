/**
 * A progress bar on standard error, only when it is a TTY; it appears after a short delay (quick runs stay
 * silent), redraws at most ten times a second and erases itself when done.
 */
import type { CliIO } from '../context.js';

export interface Progress {
  update(done: number, total: number, label?: string): void;
  done(): void;
}

const SILENT: Progress = { update() {}, done() {} };

function formatBytes(n: number): string {
  if (n >= 1024 * 1024 * 1024) return `${(n / 1024 / 1024 / 1024).toFixed(1)} GB`;
  if (n >= 1024 * 1024) return `${(n / 1024 / 1024).toFixed(1)} MB`;
  if (n >= 1024) return `${(n / 1024).toFixed(0)} kB`;
  return `${n} B`;
}

export function createProgress(
  io: CliIO,
  options: { enabled?: boolean; delayMs?: number; unit?: 'bytes' | 'items' } = {},
): Progress {
  const stream = io.stderr;
  if (options.enabled === false || !stream.isTTY) return SILENT;
  const started = Date.now();
  const delay = options.delayMs ?? 500;
  let last = 0;
  let shown = false;
  let lastLabel = '';
  const show = (n: number): string => (options.unit === 'items' ? String(n) : formatBytes(n));
  return {
    update(done, total, label = '') {
      const now = Date.now();
      // Redraw at most ten times a second, but always when the label changes (a new phase).
      if (now - started < delay || (now - last < 100 && label === lastLabel)) return;
      lastLabel = label;
      last = now;
      shown = true;
      const width = Math.max(10, Math.min(30, (stream.columns || 80) - 50));
      const ratio = total > 0 ? Math.min(1, done / total) : 0;
      const filled = Math.round(ratio * width);
      const bar =
        total > 0
          ? `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${(ratio * 100).toFixed(0).padStart(3)}%`
          : '';
      const rate = done / Math.max(0.001, (now - started) / 1000);
      const amount = total > 0 ? `${show(done)}/${show(total)}` : show(done);
      const speed = options.unit === 'items' ? '' : ` ${formatBytes(rate)}/s`;
      stream.write(`\r\x1b[K${`${bar} ${amount}${speed} ${label}`.slice(0, (stream.columns || 80) - 1)}`);
    },
    done() {
      if (shown) stream.write('\r\x1b[K');
    },
  };
}
