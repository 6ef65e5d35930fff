// What a benchmark prints and keeps: fixed-width tables, numbers as their cells, the machine it ran
// on, and its result written to bench/results/<name>.json.
import { mkdirSync, writeFileSync } from 'node:fs'
import { cpus, totalmem } from 'node:os'
import { RESULTS } from './paths.js'

/** Fixed-width text table. */
export function table (header: string[], rows: string[][]): string {
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((r) => (r[c] ?? '').length)))
  return [header, ...rows].map((r) => r.map((x, c) => (x ?? '').padEnd(widths[c])).join('  ').trimEnd()).join('\n')
}

export const ms = (x: number, digits = 2): string => Number.isFinite(x) ? x.toFixed(digits) : 'n/a'
export const int = (x: number): string => Number.isFinite(x) ? Math.round(x).toString() : 'n/a'

export function machine (): { node: string, cpu: string, cores: number, memory_gib: number, platform: string } {
  const c = cpus()
  return {
    node: process.version,
    cpu: c[0]?.model ?? 'unknown',
    cores: c.length,
    memory_gib: Math.round(totalmem() / 2 ** 30),
    platform: `${process.platform} ${process.arch}`
  }
}

export function writeResult (name: string, result: unknown): string {
  mkdirSync(RESULTS, { recursive: true })
  const path = `${RESULTS}/${name}.json`
  const contents = { benchmark: name, at: new Date().toISOString(), machine: machine(), ...(result as object) }
  writeFileSync(path, JSON.stringify(contents, null, 2) + '\n')
  return path
}
