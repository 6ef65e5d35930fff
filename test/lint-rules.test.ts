// The import rules of eslint.config.js fail a violation (the project linting clean, lint.test.ts,
// shows only that none is written today): apache-arrow is imported in src/samples/arrow alone, and
// the rest of the samples room enters its Arrow and JSON rooms through their index.ts.
import t from 'tap'
import { ESLint } from 'eslint'
import { repoPath } from './helpers/paths.js'

const eslint = new ESLint({ cwd: repoPath('.') })

/** The rules a text breaks as if it were the file at `filePath` (relative to the repository). */
async function broken (code: string, filePath: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath })
  return result.messages.map((m) => m.ruleId ?? m.message)
}

const ARROW_IMPORT = 'import { tableFromIPC } from \'apache-arrow\'\nexport const read = tableFromIPC\n'

t.test('apache-arrow: an error anywhere in src/ but src/samples/arrow', async (t) => {
  t.same(await broken(ARROW_IMPORT, 'src/profile/x.ts'), ['no-restricted-imports'], 'src/profile')
  t.same(await broken(ARROW_IMPORT, 'src/samples/engine.ts'), ['no-restricted-imports'], 'the samples room')
  t.same(await broken(ARROW_IMPORT, 'src/http/tawhiri/x.ts'), ['no-restricted-imports'], 'an inner room elsewhere')
  t.same(await broken('import type { Table } from \'apache-arrow\'\nexport type T = Table\n', 'src/http/x.ts'),
    ['no-restricted-imports'], 'a type-only import')
  t.same(await broken('export { Table } from \'apache-arrow/table\'\n', 'src/field/x.ts'),
    ['no-restricted-imports'], 'a file inside the package')
  t.same(await broken('export const arrow = await import(\'apache-arrow\')\n', 'src/http/x.ts'),
    ['no-restricted-syntax'], 'a dynamic import')
  t.same(await broken(ARROW_IMPORT, 'src/samples/arrow/writer.ts'), [], 'fine in src/samples/arrow')
  t.same(await broken('export const arrow = await import(\'apache-arrow\')\n', 'src/samples/arrow/x.ts'), [],
    'a dynamic import in src/samples/arrow')
  t.same(await broken(ARROW_IMPORT, 'bench/x.ts'), [], 'outside src/, free')
})

t.test('the samples room enters its Arrow and JSON rooms through their doors', async (t) => {
  t.same(await broken('export { ArrowSamplesWriter } from \'./arrow/writer.js\'\n', 'src/samples/engine.ts'),
    ['no-restricted-imports'], 'an Arrow room file')
  t.same(await broken('export { numbers } from \'./json/columns.js\'\n', 'src/samples/task.ts'),
    ['no-restricted-imports'], 'a JSON room file')
  t.same(await broken('export { numbers } from \'../json/columns.js\'\n', 'src/samples/arrow/x.ts'),
    ['no-restricted-imports'], 'a JSON room file from the Arrow room')
  t.same(await broken('export { loadArrow } from \'./arrow/index.js\'\n', 'src/samples/engine.ts'), [],
    'the Arrow door')
  t.same(await broken('export { numbers } from \'./json/index.js\'\n', 'src/samples/task.ts'), [], 'the JSON door')
  t.same(await broken('export { ArrowSamplesWriter } from \'./writer.js\'\n', 'src/samples/arrow/io.ts'), [],
    'inside the Arrow room')
  t.same(await broken('export { loadArrow } from \'../samples/arrow/lazy.js\'\n', 'src/http/x.ts'),
    ['no-restricted-imports'], 'another room reaching inside the samples room')
})
