// Dates as the pages show them: Unix seconds (EEE's retrieved_timestamp), milliseconds or ISO text become
// "YYYY-MM-DD HH:MM UTC"; nothing, 0 or a negative number is "unknown" (never 1970-01-01); other text is shown as
// written.

/** The instant a timestamp stands for, or null when it stands for none. */
export function parseTimestamp(value: string | number | null | undefined): Date | null {
  if (value === null || value === undefined) return null;
  const text = String(value).trim();
  if (text === '') return null;
  const n = Number(text);
  if (Number.isFinite(n)) {
    if (n <= 0) return null;
    const d = new Date(n > 1e11 ? n : n * 1000);
    return Number.isNaN(d.getTime()) ? null : d;
  }
  if (!/^\d{4}-\d{2}-\d{2}/.test(text)) return null;
  const d = new Date(text);
  return Number.isNaN(d.getTime()) ? null : d;
}

/** "2026-01-02 03:04 UTC", "unknown", or the text itself when it is not a date. */
export function fmtDate(value: string | number | null | undefined, dayOnly = false): string {
  const d = parseTimestamp(value);
  if (d === null) {
    const text = value === null || value === undefined ? '' : String(value).trim();
    return text === '' || (Number.isFinite(Number(text)) && Number(text) <= 0) ? 'unknown' : text;
  }
  const iso = d.toISOString();
  return dayOnly ? iso.slice(0, 10) : `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}
