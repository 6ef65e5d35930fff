// A benchmark's options on its command line.

/** `--name value` from argv, as a number; the fallback when absent. */
export function numberArg (name: string, fallback: number): number {
  const k = process.argv.indexOf(`--${name}`)
  if (k < 0) return fallback
  const n = Number(process.argv[k + 1])
  if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name} needs a positive number, got ${process.argv[k + 1]}`)
  return n
}
