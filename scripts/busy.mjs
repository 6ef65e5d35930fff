#!/usr/bin/env node
// Runs a command on a busy machine: as many processes spinning without pause as the machine has
// cores (or BUSY_PROCESSES), started first and stopped after, so the command shares every core with
// other work the way it does on a shared CI machine. `npm run test:busy` runs the suite so: a test
// whose bounds follow the wall clock rather than what it measures fails here first.
import { spawn } from 'node:child_process'
import { availableParallelism } from 'node:os'

const [cmd, ...args] = process.argv.slice(2)
if (!cmd) {
  console.error('usage: busy.mjs <command> [args...]   (BUSY_PROCESSES: how many spinners; default the cores)')
  process.exit(2)
}
const count = Number(process.env.BUSY_PROCESSES ?? availableParallelism())
// a shell loop is what a neighbour's build or test run looks like to the scheduler: all user CPU, no I/O
const spinners = Array.from({ length: count }, () =>
  spawn('sh', ['-c', 'while :; do :; done'], { stdio: 'ignore', detached: false }))
console.error(`busy.mjs: ${count} spinning process(es) beside: ${[cmd, ...args].join(' ')}`)
const stop = () => { for (const s of spinners) s.kill('SIGKILL') }
const child = spawn(cmd, args, { stdio: 'inherit' })
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => { child.kill(signal) })
child.on('exit', (code, signal) => {
  stop()
  process.exit(code ?? (signal === null ? 0 : 1))
})
