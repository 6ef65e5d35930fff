// The built `aloft` command run as a user runs it: its own process, a clean environment (PATH
// only, plus what the test adds), captured output and exit code.
import { spawn, type ChildProcessByStdio, type SpawnOptions } from 'node:child_process'
import type { Readable } from 'node:stream'
import { ROOT } from './paths.js'
import { once } from 'node:events'
import { track } from '../../bench/lib/children.js'

export { ROOT }
export const MAIN = 'dist/src/cli/main.js'

export interface CliResult { code: number | null, stdout: string, stderr: string }

export interface RunOptions {
  /** Run as another user (uid and gid). */
  as?: Required<Pick<SpawnOptions, 'uid' | 'gid'>>
  /**
   * Let tap follow the process (its coverage counts). That costs seconds a process on a loaded
   * machine, so only the runs that reach code no other test does ask for it. Never with `as`:
   * tap's files are not that user's to write.
   */
  covered?: boolean
}

export async function runAloft (
  args: string[], env: Record<string, string> = {}, options: RunOptions = {}
): Promise<CliResult> {
  const child = spawnAloft(args, env, options)
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (d) => { stdout += d })
  child.stderr.on('data', (d) => { stderr += d })
  const [code] = await once(child, 'close') as [number | null]
  return { code, stdout, stderr }
}

/** A stack trace's frames look like this; start-up failures must print none. */
export const STACK_FRAME = /^\s+at .+\(?.+:\d+:\d+\)?$/m

/** The built command in its own process, stdout and stderr piped (see RunOptions). */
export function spawnAloft (
  args: string[], env: Record<string, string> = {}, options: RunOptions = {}
): ChildProcessByStdio<null, Readable, Readable> {
  // tap follows every node process started with its NODE_OPTIONS; `env -u` starts one without
  const [command, argv] = options.covered === true && options.as === undefined
    ? [process.execPath, [MAIN, ...args]]
    : ['/usr/bin/env', ['-u', 'NODE_OPTIONS', process.execPath, MAIN, ...args]]
  return track(spawn(command, argv, {
    cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'], ...options.as
  }))
}
