/**
 * A progress bar on standard error, only when it is a TTY (and not TERM=dumb); it appears after a short delay
 * (quick runs stay silent), redraws at most ten times a second, never gets wider than the terminal and erases
 * itself when done.
 */
import { isInteractive, type CliIO } from '../context.js';

export interface Progress {
  update(done: number, total: number, label?: string): void;
  done(): void;
}

const SILENT: Progress = { update() {}, done() {} };

/** The terminal's width; a pseudo-terminal nobody sized reports 0 columns, read as the classic 80. */
export function terminalColumns(stream: { columns?: number }): number {
  return stream.columns || 80;
}

/** A remaining time as a short clock: 45s, 3m05s, 1h02m. */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.ceil(ms / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

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
  if (options.enabled === false || !isInteractive(io)) return SILENT;
  const started = Date.now();
  // EVALKIT_PROGRESS_EVERY_TICK=1 draws at every update, with no delay and no rate limit: the terminal tests see a
  // frame per progress tick, whatever the machine's speed.
  const everyTick = process.env.EVALKIT_PROGRESS_EVERY_TICK === '1';
  const delay = everyTick ? 0 : (options.delayMs ?? 500);
  const minInterval = everyTick ? 0 : 100;
  let last = 0;
  let shown = false;
  let finished = false;
  let lastLabel = '';
  const show = (n: number): string => (options.unit === 'items' ? String(n) : formatBytes(n));
  return {
    update(done, total, label = '') {
      const now = Date.now();
      // Redraw at most ten times a second, but always when the label changes (a new phase).
      if (finished || now - started < delay || (now - last < minInterval && label === lastLabel)) return;
      lastLabel = label;
      last = now;
      shown = true;
      const columns = terminalColumns(stream);
      const width = Math.max(10, Math.min(30, columns - 50));
      const ratio = total > 0 ? Math.min(1, done / total) : 0;
      const filled = Math.round(ratio * width);
      const bar =
        total > 0
          ? `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${(ratio * 100).toFixed(0).padStart(3)}%`
          : '';
      const rate = done / Math.max(0.001, (now - started) / 1000);
      const amount = total > 0 ? `${show(done)}/${show(total)}` : show(done);
      const speed = options.unit === 'items' ? '' : ` ${formatBytes(rate)}/s`;
      const eta =
        total > 0 && done > 0 && done < total ? ` ETA ${formatDuration(((total - done) / rate) * 1000)}` : '';
      const line = [bar, `${amount}${speed}${eta}`, label].filter((part) => part !== '').join(' ');
      stream.write(`\r\x1b[K${line.slice(0, columns - 1)}`);
    },
    done() {
      // Idempotent: commands call it before printing their report and again in `finally`.
      if (shown) stream.write('\r\x1b[K');
      shown = false;
      finished = true;
    },
  };
}
