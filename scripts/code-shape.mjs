#!/usr/bin/env node
// The shape of src/, workers/ and bench/ as docs/ARCHITECTURE.md asks it to stay: files of at most
// 300 lines, function bodies of at most 120 lines (at most two over 80, each saying why in a comment
// above it), and no import cycle (type-only imports included). Each tree is held on its own, with its
// own two long functions: they are separate programs (the service, its worker module, the tools that
// measure it), and a benchmark's long function must not spend the service's allowance. Read with the
// TypeScript compiler's own parser. (That other rooms are entered through their index.ts is ESLint's
// to hold: eslint.config.js.)
//   node scripts/code-shape.mjs            # a report per tree; exit 1 when a rule is broken
//   node scripts/code-shape.mjs --json     # the reports as JSON, by tree
import { readFileSync, readdirSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
/** The trees held to the shape (test/architecture.test.ts holds each). */
export const TREES = ['src', 'workers', 'bench']
export const MAX_FILE_LINES = 300
export const MAX_FUNCTION_LINES = 120
export const LONG_FUNCTION_LINES = 80
export const MAX_LONG_FUNCTIONS = 2

function sourceFiles (dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name)
    if (e.isDirectory()) return sourceFiles(path)
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [path] : []
  })
}

function functionName (node, sf) {
  if (node.name !== undefined) return node.name.getText(sf)
  const parent = node.parent
  if (parent !== undefined && ts.isVariableDeclaration(parent)) return parent.name.getText(sf)
  if (parent !== undefined && ts.isPropertyAssignment(parent)) return parent.name.getText(sf)
  return '(anonymous)'
}

/** The comment lines just above a node (to find a long function's reason). */
function leadingComment (node, sf) {
  const ranges = ts.getLeadingCommentRanges(sf.text, node.getFullStart()) ?? []
  return ranges.map((r) => sf.text.slice(r.pos, r.end)).join('\n')
}

/** The shape of one tree (`src` by default): its long files and functions, its import cycles. */
export function codeShape (tree = 'src') {
  const files = sourceFiles(join(ROOT, tree))
  const report = { longFiles: [], longFunctions: [], cycles: [] }
  const graph = new Map()
  for (const file of files) {
    const text = readFileSync(file, 'utf8')
    const sf = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true)
    const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0)
    const name = relative(ROOT, file)
    if (lines > MAX_FILE_LINES) report.longFiles.push({ file: name, lines })
    const edges = []
    graph.set(file, edges)
    const visit = (node) => {
      if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier !== undefined &&
        ts.isStringLiteral(node.moduleSpecifier) && node.moduleSpecifier.text.startsWith('.')) {
        edges.push(resolve(dirname(file), node.moduleSpecifier.text.replace(/\.js$/, '.ts')))
      }
      if (ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node) || ts.isArrowFunction(node) ||
        ts.isFunctionExpression(node) || ts.isConstructorDeclaration(node) || ts.isGetAccessor(node)) {
        const body = node.body
        if (body !== undefined) {
          const first = sf.getLineAndCharacterOfPosition(body.getStart(sf)).line
          const last = sf.getLineAndCharacterOfPosition(body.getEnd()).line
          const length = last - first + 1
          if (length > LONG_FUNCTION_LINES) {
            const statement = ts.isArrowFunction(node) || ts.isFunctionExpression(node)
              ? node.parent?.parent?.parent ?? node
              : node
            const why = leadingComment(statement, sf).trim() !== '' || leadingComment(node, sf).trim() !== ''
            report.longFunctions.push({ file: name, name: functionName(node, sf), lines: length, line: first + 1, why })
          }
        }
      }
      ts.forEachChild(node, visit)
    }
    visit(sf)
  }
  // cycles: Tarjan's strongly connected components of the import graph
  let index = 0
  const stack = []
  const meta = new Map()
  const strong = (v) => {
    meta.set(v, { index, low: index, on: true })
    index++
    stack.push(v)
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue
      if (!meta.has(w)) {
        strong(w)
        meta.get(v).low = Math.min(meta.get(v).low, meta.get(w).low)
      } else if (meta.get(w).on) {
        meta.get(v).low = Math.min(meta.get(v).low, meta.get(w).index)
      }
    }
    if (meta.get(v).low === meta.get(v).index) {
      const component = []
      let w
      do {
        w = stack.pop()
        meta.get(w).on = false
        component.push(relative(ROOT, w))
      } while (w !== v)
      if (component.length > 1) report.cycles.push(component.sort())
    }
  }
  for (const v of graph.keys()) if (!meta.has(v)) strong(v)
  report.longFunctions.sort((a, b) => b.lines - a.lines)
  return report
}

export function shapeProblems (report) {
  const problems = []
  for (const f of report.longFiles) problems.push(`${f.file}: ${f.lines} lines (at most ${MAX_FILE_LINES})`)
  for (const f of report.longFunctions) {
    if (f.lines > MAX_FUNCTION_LINES) {
      problems.push(`${f.file}:${f.line} ${f.name}: ${f.lines} lines (at most ${MAX_FUNCTION_LINES})`)
    }
  }
  const long = report.longFunctions.filter((f) => f.lines <= MAX_FUNCTION_LINES)
  if (long.length > MAX_LONG_FUNCTIONS) {
    problems.push(`${long.length} functions over ${LONG_FUNCTION_LINES} lines (at most ${MAX_LONG_FUNCTIONS}): ` +
      long.map((f) => `${f.file}:${f.line} ${f.name} (${f.lines})`).join(', '))
  }
  for (const f of long) {
    if (!f.why) problems.push(`${f.file}:${f.line} ${f.name}: over ${LONG_FUNCTION_LINES} lines without a comment why`)
  }
  for (const c of report.cycles) problems.push(`import cycle: ${c.join(' → ')}`)
  return problems
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  const reports = Object.fromEntries(TREES.map((tree) => [tree, codeShape(tree)]))
  if (process.argv.includes('--json')) {
    console.log(JSON.stringify(reports, null, 2))
  } else {
    let broken = false
    for (const tree of TREES) {
      const problems = shapeProblems(reports[tree])
      console.log(problems.length === 0 ? `${tree}/ keeps its shape` : problems.join('\n'))
      broken ||= problems.length > 0
    }
    process.exitCode = broken ? 1 : 0
  }
}
