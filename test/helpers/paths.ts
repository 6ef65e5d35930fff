// Where the tests find the repository's files. The suite runs compiled (dist/test/…, beside
// dist/src), so a path written relative to a test file would point into dist/; these are
// relative to the repository's root instead, found as the nearest folder up with package.json.
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

function findRoot (from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir
    if (dirname(dir) === dir) throw new Error(`no package.json above ${from}`)
  }
}

/** The repository's root, with a trailing slash. */
export const ROOT = join(findRoot(dirname(fileURLToPath(import.meta.url))), '/')

/** A path inside the repository, e.g. `repoPath('test/fixtures/grib/')`. */
export function repoPath (relative: string): string {
  return join(ROOT, relative)
}

/** The same as a file: URL (for `new URL(name, base)` and `readFile`). */
export function repoUrl (relative: string): URL {
  return pathToFileURL(repoPath(relative))
}

/** The compiled module of a source file: `compiled('src/cli/upstream')` → …/dist/src/cli/upstream.js. */
export function compiled (stem: string): string {
  return repoPath(`dist/${stem}.js`)
}
