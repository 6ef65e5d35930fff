// The shape docs/ARCHITECTURE.md promises for src/, workers/ and bench/, held by the same script a
// developer runs (scripts/code-shape.mjs): files of at most 300 lines, function bodies of at most 120
// (at most two over 80 in each tree, each with its reason above it), no import cycle, type-only
// imports included. (Rooms entered through their index.ts is ESLint's rule: eslint.config.js.)
import t from 'tap'
import { pathToFileURL } from 'node:url'
import { repoPath } from './helpers/paths.js'

const { codeShape, shapeProblems } = await import(pathToFileURL(repoPath('scripts/code-shape.mjs')).href) as {
  codeShape: (tree?: string) => { longFiles: unknown[], longFunctions: Array<{ lines: number }>, cycles: string[][] }
  shapeProblems: (report: unknown) => string[]
}

t.test('src/ keeps its shape', async (t) => {
  const report = codeShape()
  t.same(shapeProblems(report), [])
  t.same(report.cycles, [], 'no import cycle')
  t.ok(report.longFunctions.every((f) => f.lines <= 120), 'no function body over 120 lines')
})

for (const tree of ['workers', 'bench']) {
  t.test(`${tree}/ keeps its shape`, async (t) => {
    const report = codeShape(tree)
    t.same(shapeProblems(report), [])
    t.same(report.cycles, [], 'no import cycle')
    t.ok(report.longFunctions.every((f) => f.lines <= 120), 'no function body over 120 lines')
  })
}
