// apache-arrow loads on the first Arrow request, not at start-up (src/samples/arrow/lazy.ts): no
// chain of static imports leads to it from the service or the pool's worker module, as compiled.
import t from 'tap'
import { readFileSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import ts from 'typescript'
import { compiled } from '../helpers/paths.js'

/** Every module reached from `entries` by static imports and re-exports (import() left out). */
function staticGraph (entries: string[]): Set<string> {
  const seen = new Set<string>()
  const walk = (file: string): void => {
    if (seen.has(file)) return
    seen.add(file)
    if (!file.startsWith('/')) return // a package (or node:…): its own imports are its own
    const sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022)
    for (const statement of sf.statements) {
      if ((!ts.isImportDeclaration(statement) && !ts.isExportDeclaration(statement)) ||
        statement.moduleSpecifier === undefined || !ts.isStringLiteral(statement.moduleSpecifier)) continue
      const specifier = statement.moduleSpecifier.text
      walk(specifier.startsWith('.') ? resolve(dirname(file), specifier) : specifier)
    }
  }
  for (const entry of entries) walk(entry)
  return seen
}

t.test('apache-arrow is not in the start-up module graph', async (t) => {
  const graph = staticGraph([compiled('src/service'), compiled('src/cli/serve'), compiled('workers/tasks')])
  t.ok(graph.has(compiled('src/samples/arrow/lazy')), 'the graph reaches the lazy loader')
  t.notOk(graph.has(compiled('src/samples/arrow/io')), 'but not what it loads')
  t.same([...graph].filter((m) => m.startsWith('apache-arrow')), [], 'nor apache-arrow')
  t.ok(staticGraph([compiled('src/samples/arrow/io')]).has('apache-arrow'), 'which the loaded module imports')
})
