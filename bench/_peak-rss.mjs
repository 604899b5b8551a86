// Peak resident memory of this process, in MB. On Linux this is VmHWM from /proc/self/status: getrusage's maxRSS
// (process.resourceUsage().maxRSS) is kept across execve, so a child spawned by a benchmark that had generated a
// large input in memory reports the parent's peak instead of its own (measured: 804 MB for a child whose own peak
// was 40 MB). Elsewhere, maxRSS.
import { readFileSync } from 'node:fs';

export function peakRssMb() {
  try {
    const hwm = /VmHWM:\s*(\d+)\s*kB/.exec(readFileSync('/proc/self/status', 'utf8'));
    if (hwm) return Number(hwm[1]) / 1024;
  } catch {
    // not Linux: fall through
  }
  return process.resourceUsage().maxRSS / 1024;
}
