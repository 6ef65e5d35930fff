// Child processes: every one we start is killed when we leave, however we leave (a signal included:
// tap ends a test file that ran out of time with SIGALRM, and a server it had started must not serve
// on, holding its port and Redis, for hours); and the first JSON line a child prints (how the server
// and load generator children answer).
import type { ChildProcess } from 'node:child_process'
import { createInterface } from 'node:readline'

const children = new Set<ChildProcess>()
function killAll (): void {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL')
}
process.on('exit', killAll)
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => { killAll(); process.exit(130) })
}
// tap reports a timed-out file's handles on SIGALRM and ends it itself: the children go first
process.on('SIGALRM', killAll)

export function track<T extends ChildProcess> (child: T): T {
  children.add(child)
  child.once('exit', () => children.delete(child))
  return child
}

/** Stop a child: SIGTERM, then SIGKILL after `graceMs`. */
export async function stop (child: ChildProcess, graceMs = 3000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  child.kill('SIGTERM')
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs)
  await exited
  clearTimeout(timer)
}

/** The first line that parses as JSON and is `accepted`; others (the service's own logs) pass to stderr. */
export async function firstJsonLine<T> (child: ChildProcess, what: string, timeoutMs: number,
  accepted: (value: T) => boolean = () => true): Promise<T> {
  const lines = createInterface({ input: child.stdout! })
  let stderr = ''
  child.stderr?.on('data', (d: Buffer) => { stderr = (stderr + d.toString()).slice(-4000) })
  return await new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new Error(`${what} gave no answer in ${timeoutMs} ms; stderr: ${stderr}`))
    }, timeoutMs)
    child.once('exit', (code, signal) => {
      clearTimeout(timer)
      reject(new Error(`${what} exited (${code ?? signal}) before answering; stderr: ${stderr}`))
    })
    const onLine = (line: string): void => {
      let value: T
      try {
        value = JSON.parse(line) as T
      } catch {
        clearTimeout(timer)
        reject(new Error(`${what} printed ${line.slice(0, 200)}; stderr: ${stderr}`))
        return
      }
      if (!accepted(value)) {
        process.stderr.write(`[${what}] ${line}\n`)
        return
      }
      clearTimeout(timer)
      lines.off('line', onLine)
      resolve(value)
    }
    lines.on('line', onLine)
  })
}
