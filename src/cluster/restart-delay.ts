// How long the primary waits before replacing a process that died: at once after a quiet time, then
// doubling while replacements keep dying young, so a process that cannot live (a bad disk, a bug
// on a request every client sends) is not forked in a tight loop.

/** A process that served this long died of something new: its replacement starts at once. */
export const STABLE_MS = 30_000
/** The second quick death in a row waits this long; each further one twice the last. */
export const FIRST_DELAY_MS = 1000
export const MAX_DELAY_MS = 30_000

/**
 * The wait before the next replacement, given how many processes in a row died within STABLE_MS
 * of starting (`quickDeaths`, counting this one; 0 when this one had served long enough).
 */
export function restartDelayMs (quickDeaths: number): number {
  if (quickDeaths <= 1) return 0
  return Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** (quickDeaths - 2))
}
