// ESLint over the project (eslint.config.js: the recommended rules, 120-column lines, rooms entered
// through their index.ts) as a test of the suite: it runs beside the other files instead of before
// them all, and a finding fails `npm test` as before. `npm run lint` is the same check on its own.
import t from 'tap'
import { ESLint } from 'eslint'
import { repoPath } from './helpers/paths.js'

t.test('the project lints clean', async (t) => {
  const eslint = new ESLint({ cwd: repoPath('.') })
  const results = await eslint.lintFiles(['.'])
  const found = results.filter((r) => r.errorCount + r.warningCount > 0)
  const text = found.length === 0 ? '' : (await eslint.loadFormatter('stylish')).format(found)
  t.equal(found.length, 0, `no finding${text === '' ? '' : `:\n${text}`}`)
  t.ok(results.length > 300, `${results.length} files linted`)
})
