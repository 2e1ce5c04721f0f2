/** Small helpers the report's SVG pictures share: escaping, colours, tick spacing. */

export function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** A stable colour per key (a layer or buffer name), spread over the hue circle by a string hash. */
export function colour(key: string, lightness = 62): string {
  let h = 2166136261;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 16777619);
  return `hsl(${(h >>> 0) % 360} 55% ${lightness}%)`;
}

/** Distinct colours for consecutive indices: hues a golden angle apart never repeat and neighbours differ most. */
export function indexColour(i: number, lightness = 62): string {
  return `hsl(${((i * 137.508) % 360).toFixed(1)} 55% ${lightness}%)`;
}

/** A "nice" tick step (1, 2 or 5 times a power of ten) giving about `count` ticks over `range`. */
export function tickStep(range: number, count: number): number {
  if (range <= 0) return 1;
  const raw = range / count;
  const p = 10 ** Math.floor(Math.log10(raw));
  const m = raw / p;
  return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
}

export function fmtNum(v: number): string {
  return Number.isInteger(v) ? String(v) : v.toPrecision(3).replace(/\.?0+$/, '');
}

/** Bytes as B / KiB / MiB with at most three significant digits. */
export function fmtBytes(b: number): string {
  if (b < 1024) return `${b} B`;
  if (b < 1024 * 1024) return `${fmtNum(b / 1024)} KiB`;
  return `${fmtNum(b / 1024 / 1024)} MiB`;
}

/** Text clipped to fit `px` pixels at ~6.5 px per character of 11 px sans-serif; '' when not even 3 characters fit. */
export function fitText(s: string, px: number): string {
  const n = Math.floor(px / 6.5);
  if (n >= s.length) return s;
  return n < 3 ? '' : `${s.slice(0, n - 1)}…`;
}
