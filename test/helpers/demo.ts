// `aloft demo` (the built command, as `npm run demo` starts it) on a free port, for the tests that
// follow the README or call the service as a client would: its address and the export lines it
// printed (ALOFT_URL, ALOFT_API_KEY, ALOFT_ADMIN_TOKEN). Stopped with Ctrl-C when the test ends.
import { once } from 'node:events'
import { spawnAloft } from './cli.js'

export interface Demo {
  url: string
  /** The export lines' variables, by name. */
  exports: Record<string, string>
  /** Everything the demo printed up to its "Ctrl-C" line. */
  stdout: string
}

/** `teardown`: the test (or tap's root) the demo lives as long as; `env`: what the demo reads besides PORT=0. */
export async function startDemo (
  test: { teardown: (fn: () => Promise<void>) => void }, env: Record<string, string> = {}
): Promise<Demo> {
  // one worker thread: what these tests ask needs no more, and each thread costs its start-up's CPU; a
  // short keep-alive: its stop drains, and the test's own idle connections would hold that up 4 s
  const child = spawnAloft(['demo'], { PORT: '0', ALOFT_WORKERS: '1', ALOFT_KEEP_ALIVE_TIMEOUT_MS: '500', ...env })
  test.teardown(async () => {
    if (child.exitCode !== null) return
    child.kill('SIGINT')
    await once(child, 'exit')
  })
  let stdout = ''
  child.stdout.on('data', (d) => { stdout += d })
  // it either starts or exits: the bound only names "never", long enough for a machine shared with others
  for (let i = 0; i < 1800 && !stdout.includes('Ctrl-C') && child.exitCode === null; i++) {
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  const url = /on (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout)?.[1]
  if (url === undefined) throw new Error(`the demo did not start: ${stdout}`)
  const exports = Object.fromEntries([...stdout.matchAll(/^\s+export (\w+)=(\S+)$/gm)].map((m) => [m[1], m[2]]))
  return { url, exports, stdout }
}
