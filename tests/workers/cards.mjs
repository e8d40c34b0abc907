// The cards of the 4-worker run, shared by the spec that captures them and the test that checks.

export const SNAPSHOTS = 48;

/** Letters for a number (0 → a, 26 → ba): the collector keeps ids without digits in selectors. */
export function letters(n) {
  return (n >= 26 ? letters(Math.floor(n / 26)) : '') + String.fromCharCode(97 + (n % 26));
}
