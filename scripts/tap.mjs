#!/usr/bin/env node
// `npm test`'s runner: tap with the project's settings. On a terminal, tap's own live reporter;
// when stdout is not a terminal (CI, `npm test > log`), scripts/tap-summary.mjs (one line a test
// file, a failed file's whole output) and the coverage summary, not thousands of lines of raw TAP.
// The coverage gate (package.json "tap") applies either way. A `--reporter`/`-R` given wins.
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const args = process.argv.slice(2)
const chosen = args.some((a) => /^(--reporter|-R)/.test(a))
const quiet = process.stdout.isTTY !== true && !chosen
  ? [`--reporter=${fileURLToPath(new URL('./tap-summary.mjs', import.meta.url))}`, '--coverage-report=text-summary']
  : []
const tap = fileURLToPath(new URL('../node_modules/.bin/tap', import.meta.url))
const child = spawn(tap, [...quiet, ...args], { stdio: 'inherit' })
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal))
child.on('exit', (code, signal) => process.exit(code ?? (signal === null ? 0 : 1)))
