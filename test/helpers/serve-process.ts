// The built `aloft serve` in a process of its own, the way `npm start` runs it: its output kept,
// the URL of its "aloft listening" line, its exit.
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { ROOT } from './paths.js'
import { track } from '../../bench/lib/children.js'

/**
 * Starts `aloft serve` on a free port of 127.0.0.1 with `env` (and PATH) alone; `listeningLine`
 * picks the log line that says it serves (default: the first "aloft listening").
 */
export function startServe (env: Record<string, string>,
  listeningLine = (line: string): boolean => line.includes('"aloft listening"')) {
  const child = track(spawn(process.execPath, ['dist/src/cli/main.js', 'serve'], {
    cwd: ROOT,
    // its stop drains: a short keep-alive, or the test's own idle connections would hold that up 4 s
    env: { PATH: process.env.PATH ?? '', PORT: '0', HOST: '127.0.0.1', ALOFT_KEEP_ALIVE_TIMEOUT_MS: '500', ...env },
    stdio: ['ignore', 'pipe', 'pipe']
  }))
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (d) => { stdout += d })
  child.stderr.on('data', (d) => { stderr += d })
  const listening = new Promise<string>((resolve, reject) => {
    child.stdout.on('data', () => {
      const line = stdout.split('\n').find(listeningLine)
      if (line !== undefined) resolve(JSON.parse(line).url)
    })
    child.once('exit', (code) => reject(new Error(`exited ${code}: ${stderr}`)))
  })
  const exited = once(child, 'exit') as Promise<[number | null, string | null]>
  return { child, listening, exited, output: () => ({ stdout, stderr }) }
}
