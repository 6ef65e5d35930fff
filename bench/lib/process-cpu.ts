// CPU time of a process and everything it forked, read from /proc (Linux): a host's primary and its
// serving processes, every thread, summed — the cost of its work whatever the machine else does.
import { readFile } from 'node:fs/promises'
import { processesOf } from './processes.js'

/** Clock ticks a second of /proc's utime and stime (USER_HZ: 100 on every Linux build Node runs on). */
const TICKS_PER_SECOND = 100

/** User + system CPU (µs) of `pid` alone, every thread, not its children. */
export async function ownCpuUs (pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => null)
  if (stat === null) return 0
  // the command name may hold spaces: the fields start after its closing parenthesis
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND * 1e6
}

/** User + system CPU (µs) of `pid` and its descendants now alive. */
export async function treeCpuUs (pid: number): Promise<number> {
  const children = await processesOf(pid)
  const own = await ownCpuUs(pid)
  const theirs = await Promise.all(children.map(treeCpuUs))
  return own + theirs.reduce((a, b) => a + b, 0)
}
