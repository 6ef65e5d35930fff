// The doors of rooms inside rooms (eslint.config.js): an import past an inner room's index.ts is an
// error, through it none, and a room's own imports never trip its door.
import t from 'tap'
import { ESLint } from 'eslint'
import { repoPath } from './helpers/paths.js'

const eslint = new ESLint({ cwd: repoPath('.') })

/** The door errors ESLint reports for `specifier` imported by the file at `file`. */
async function refusals (file: string, specifier: string): Promise<string[]> {
  const code = `import { x } from '${specifier}'\nexport { x }\n`
  const [result] = await eslint.lintText(code, { filePath: repoPath(file) })
  return result.messages.filter((m) => m.ruleId === 'no-restricted-imports' && m.severity === 2).map((m) => m.message)
}

const CASES: Array<{ file: string, door: string, past: string }> = [
  { file: 'src/source/source.ts', door: './fetch/index.js', past: './fetch/fetcher.js' },
  { file: 'src/source/adapters/bucket.ts', door: '../fetch/index.js', past: '../fetch/slots.js' },
  { file: 'src/http/route-handler.ts', door: './body/index.js', past: './body/read.js' },
  { file: 'src/http/routes/samples.ts', door: '../body/index.js', past: '../body/buffers.js' },
  { file: 'src/http/app.ts', door: './tawhiri/index.js', past: './tawhiri/admission.js' },
  { file: 'src/http/body/read.ts', door: '../tawhiri/index.js', past: '../tawhiri/client.js' }
]

for (const { file, door, past } of CASES) {
  t.test(`${file}: ${past} is refused, ${door} is not`, async (t) => {
    const refused = await refusals(file, past)
    t.equal(refused.length, 1, refused.join('\n'))
    t.match(refused[0], /through its door, src\/\w+\/\w+\/index\.ts/)
    t.same(await refusals(file, door), [])
  })
}

t.test("an inner room's own imports pass its door", async (t) => {
  t.same(await refusals('src/source/fetch/fetcher.ts', './slots.js'), [])
  t.same(await refusals('src/http/body/read.ts', './buffers.js'), [])
  t.same(await refusals('src/http/tawhiri/admission.ts', './turns.js'), [])
})
