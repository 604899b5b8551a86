/** Peak resident memory of this process, in MB (see _peak-rss.mjs). */
export function peakRssMb(): number;
