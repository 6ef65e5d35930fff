// The built `aloft` command run as a user runs it: its own process, a clean environment (PATH
// only, plus what the test adds), captured output and exit code.
import { spawn, type SpawnOptions } from 'node:child_process'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'

export const ROOT = fileURLToPath(new URL('../../', import.meta.url))
export const MAIN = 'dist/src/cli/main.js'

export interface CliResult { code: number | null, stdout: string, stderr: string }

/**
 * `as`: another user (uid and gid). tap records every node process it sees start, in files that
 * user cannot write; such a run goes through `env -u NODE_OPTIONS`, out of tap's sight.
 */
export async function runAloft (
  args: string[], env: Record<string, string> = {}, as?: Required<Pick<SpawnOptions, 'uid' | 'gid'>>
): Promise<CliResult> {
  const [command, argv] = as === undefined
    ? [process.execPath, [MAIN, ...args]]
    : ['/usr/bin/env', ['-u', 'NODE_OPTIONS', process.execPath, MAIN, ...args]]
  const child = spawn(command, argv, {
    cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'], ...as
  })
  let stdout = ''
  let stderr = ''
  child.stdout!.on('data', (d) => { stdout += d })
  child.stderr!.on('data', (d) => { stderr += d })
  const [code] = await once(child, 'close') as [number | null]
  return { code, stdout, stderr }
}

/** A stack trace's frames look like this; start-up failures must print none. */
export const STACK_FRAME = /^\s+at .+\(?.+:\d+:\d+\)?$/m
