// ESLint over the project (eslint.config.js: the recommended rules, 120-column lines, rooms entered
// through their index.ts) as a test of the suite: it runs beside the other files instead of before
// them all, and a finding fails `npm test` as before. `npm run lint` is the same check on its own.
// ESLint runs in a process of its own that tap does not follow: none of the project's code runs in
// it, and under coverage ESLint's own code costs the suite a third more CPU.
import t from 'tap'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { repoPath } from './helpers/paths.js'

const exec = promisify(execFile)

interface LintMessage { line: number, column: number, message: string, ruleId: string | null }
interface LintResult { filePath: string, errorCount: number, warningCount: number, messages: LintMessage[] }

t.test('the project lints clean', async (t) => {
  const eslint = repoPath('node_modules/eslint/bin/eslint.js')
  // exit code 1 is findings, still a JSON report on stdout
  const { stdout } = await exec(process.execPath, [eslint, '.', '--format', 'json'], {
    cwd: repoPath('.'), env: { PATH: process.env.PATH ?? '' }, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024
  }).then((r) => r, (err: { code?: number, stdout?: string, stderr?: string }) => {
    if (err.code === 1 && err.stdout !== undefined) return { stdout: err.stdout }
    throw new Error(`eslint failed to run (exit ${String(err.code)}): ${err.stderr ?? ''}`)
  })
  const results = JSON.parse(stdout) as LintResult[]
  const found = results.filter((r) => r.errorCount + r.warningCount > 0)
  const lines = found.flatMap((r) => r.messages.map((m) =>
    `${r.filePath.slice(repoPath('.').length)}:${m.line}:${m.column} ${m.message} (${m.ruleId ?? 'parse'})`))
  t.equal(found.length, 0, `no finding${lines.length === 0 ? '' : `:\n${lines.join('\n')}`}`)
  t.ok(results.length > 300, `${results.length} files linted`)
})
