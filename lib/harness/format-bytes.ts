const UNITS = ["B", "KiB", "MiB", "GiB", "TiB"] as const;

/**
 * A byte count as people read it, in binary units: `512 B`, `97.7 KiB`, `25 MiB`, `2 GiB`. One
 * decimal at most, none when the value is whole (`25 MiB`, never `25.0 MiB`). The one byte
 * formatter of the library and the app: limits, errors, listings and pages all read alike.
 */
export function formatBytes(bytes: number): string {
  let unit = 0;
  let value = bytes;
  while (unit < UNITS.length - 1 && value >= 1024) {
    value /= 1024;
    unit += 1;
  }
  let rounded = unit === 0 ? Math.round(value) : Math.round(value * 10) / 10;
  // 1,048,575 B is 1023.999 KiB: it reads as 1 MiB, not 1024 KiB.
  if (rounded >= 1024 && unit < UNITS.length - 1) {
    rounded = 1;
    unit += 1;
  }
  return `${rounded} ${UNITS[unit]}`;
}
