// bench/run: every benchmark in order, each in its own process, each printing its table and
// writing bench/results/<name>.json. About 15 minutes on 2 cores.
//   npx tsc -p tsconfig.json && node dist/bench/run.js [--soak-seconds 60]
// Extra arguments after the name are passed on: `node dist/bench/run.js soak --seconds 20` runs one.
import { spawn } from 'node:child_process'
import { DIST_BENCH, machine, stop, track } from './lib/index.js'

const ALL = [
  'profile', 'crossing', 'decode', 'samples', 'trajectory', 'surface-layer', 'cold', 'soak', 'chaos', 'cores',
  'workers', 'redis-trips', 'redis-capacity', 'clients'
] as const
const k = process.argv.indexOf('--soak-seconds')
const soakSeconds = k < 0 ? null : process.argv[k + 1]
const only = ALL.find((n) => n === process.argv[2])
const plan: Array<{ name: string, args: string[] }> = only !== undefined
  ? [{ name: only, args: process.argv.slice(3) }]
  : ALL.map((name) => ({ name, args: name === 'soak' && soakSeconds !== null ? ['--seconds', soakSeconds] : [] }))

const m = machine()
console.log(`aloft benchmarks on ${m.cpu}, ${m.cores} cores, ${m.memory_gib} GiB, ${m.platform}, Node ${m.node}\n`)
const failed: string[] = []
for (const { name, args } of plan) {
  console.log(`== ${name} ${args.join(' ')}`.trimEnd())
  const t0 = performance.now()
  const child = track(spawn(process.execPath, [`${DIST_BENCH}${name}.js`, ...args], { stdio: 'inherit' }))
  const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)))
  await stop(child)
  if (code !== 0) failed.push(`${name} (exit ${code})`)
  console.log(`(${name}: ${((performance.now() - t0) / 1000).toFixed(0)} s)\n`)
}
if (failed.length > 0) {
  console.error(`failed: ${failed.join(', ')}`)
  process.exit(1)
}
