// bench/top-frames: the functions a kept V8 CPU profile spent its samples in (self time), with the
// room bench/breakdown gives each, so a room's share can be read down to the function.
//   node dist/bench/top-frames.js FILE.cpuprofile [--top 40] [--requests N]
import { readFileSync } from 'node:fs'
import { numberArg, table } from './lib/index.js'
import { roomOf, type CpuProfile } from './lib/breakdown.js'

const file = process.argv[2]
if (file === undefined || file.startsWith('--')) {
  console.error('usage: node dist/bench/top-frames.js FILE.cpuprofile [--top 40] [--requests N]')
  process.exit(2)
}
const top = numberArg('top', 40)
const requests = numberArg('requests', 0)
const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile
const rooms = roomOf(profile)
const byId = new Map(profile.nodes.map((n) => [n.id, n]))
const self = new Map<string, { us: number, room: string }>()
let total = 0
for (let k = 0; k < profile.samples.length; k++) {
  const id = profile.samples[k]
  const room = rooms(id)
  if (room === null) continue
  const { functionName, url } = byId.get(id)!.callFrame
  const name = `${functionName === '' ? '(anonymous)' : functionName} ${url.replace(/^.*\/(node_modules|dist)\//, '')}`
  const dt = profile.timeDeltas[k + 1] ?? 0
  const entry = self.get(name) ?? { us: 0, room }
  entry.us += dt
  self.set(name, entry)
  total += dt
}
const rows = [...self.entries()].sort((a, b) => b[1].us - a[1].us).slice(0, top)
console.log(table(['function', 'room', requests > 0 ? 'µs/request' : 'µs', 'share'], rows.map(([name, e]) => [
  name.slice(0, 100), e.room, (requests > 0 ? e.us / requests : e.us).toFixed(1), `${(100 * e.us / total).toFixed(1)} %`
])))
