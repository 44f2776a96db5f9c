// Numbers as the page shows them: rates in percent, correlations to three places, intervals as [lo, hi].
export const pct = (x: number): string => `${(x * 100).toFixed(1)} %`;
export const num3 = (x: number): string => x.toFixed(3);
export const interval = ([lo, hi]: [number, number], f: (x: number) => string): string =>
  `[${f(lo)}, ${f(hi)}]`;
export const count = (n: number): string => n.toLocaleString("en-US");
