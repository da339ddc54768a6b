/**
 * An integer with commas between groups of three digits (1,000,000), as `toLocaleString('en-US')`
 * writes it. Written out because that call loads ICU's number-format data: about 5 MB of the
 * server's resident memory for the few counts quoted in API descriptions and plan summaries.
 */
export function groupDigits(n: number): string {
  const digits = String(Math.trunc(Math.abs(n)));
  return `${n < 0 ? '-' : ''}${digits.replace(/\B(?=(\d{3})+$)/g, ',')}`;
}
