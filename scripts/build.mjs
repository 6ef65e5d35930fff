#!/usr/bin/env node
// `npm run build`: TypeScript (the code, its tests and benchmarks) to dist/, then the files the
// compiled code reads beside itself (the Redis Lua scripts) copied to the same place under dist/,
// then the web explorer (web/) type-checked and bundled into dist/web/ with content-hashed names.
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'
import { buildMapData, mapDataNotice } from './map-data.mjs'
import { writeClientTypes } from './client-types.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const tsc = join(root, 'node_modules/typescript/bin/tsc')
const DIRS = ['src', 'workers', 'bench', 'test', 'scripts', 'clients/typescript/src']
const SOURCE = /\.ts$/
/** Every file below `dir` (relative paths), or none when it does not exist. */
const filesBelow = (dir) => {
  try {
    return readdirSync(dir, { recursive: true, encoding: 'utf8' })
  } catch {
    return []
  }
}
// Incremental: tsc re-checks and re-emits only what changed since its record (dist/.tsbuildinfo),
// so the build `npm test` starts with after `npm ci` (whose prepare step built) costs seconds, not
// twenty. Its record trusts the emitted files to be there: one missing (a dist/ partly deleted)
// means the record goes and everything is emitted again.
const buildInfo = join(root, 'dist/.tsbuildinfo')
const emitted = (dir, file) => join(root, 'dist', dir, file.replace(SOURCE, '.js'))
const complete = DIRS.every((dir) => filesBelow(join(root, dir))
  .filter((f) => SOURCE.test(f)).every((f) => existsSync(emitted(dir, f))))
if (!complete) rmSync(buildInfo, { force: true })
// the TypeScript client's types, from the service's OpenAPI document, before anything is compiled against them
await writeClientTypes()
execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.json'), '--incremental', '--tsBuildInfoFile',
  buildInfo], { stdio: 'inherit' })
// tap runs every dist/test/**/*.test.js, so a test deleted or renamed in test/ must not live on as
// its old compiled file, nor a removed module stay importable: what no source emits any more goes
const EMITTED = /\.(js|js\.map|lua)$/
for (const dir of DIRS) {
  for (const file of filesBelow(join(root, 'dist', dir))) {
    if (!EMITTED.test(file)) continue
    const source = join(root, dir, file.replace(/\.js(\.map)?$/, '.ts'))
    if (!existsSync(source)) rmSync(join(root, 'dist', dir, file), { force: true })
  }
}

const ASSETS = /\.lua$/
for (const entry of readdirSync(join(root, 'src'), { recursive: true, encoding: 'utf8' })) {
  if (ASSETS.test(entry)) cpSync(join(root, 'src', entry), join(root, 'dist/src', entry))
}

// The TypeScript client as its package ships (clients/typescript/dist, with declarations): the explorer
// and the README's example import it as `@aloft/client`. Its record sits in its output, so they go together.
const client = join(root, 'clients/typescript')
execFileSync(process.execPath, [tsc, '-p', join(client, 'tsconfig.json'), '--incremental', '--tsBuildInfoFile',
  join(client, 'dist/.tsbuildinfo')], { stdio: 'inherit' })

// The explorer. esbuild does not type-check, so tsc does first (DOM types, no emit).
execFileSync(process.execPath, [tsc, '-p', join(root, 'web/tsconfig.json'), '--incremental', '--tsBuildInfoFile',
  join(root, 'dist/.web-tsbuildinfo')], { stdio: 'inherit' })
const out = join(root, 'dist/web')
rmSync(out, { recursive: true, force: true })
mkdirSync(out, { recursive: true })
/** Names carry a hash of their bytes, so the service may let browsers keep them for a year. */
const hashed = (stem, ext, bytes) => {
  const name = `${stem}-${createHash('sha256').update(bytes).digest('hex').slice(0, 12)}.${ext}`
  writeFileSync(join(out, name), bytes)
  return `/explorer/${name}`
}
// The offline map's data (scripts/map-data.mjs): served by aloft itself, no tiles from the internet.
const data = buildMapData()
const mapData = Object.fromEntries(Object.entries(data)
  .map(([layer, bytes]) => [layer, hashed(`map-${layer}`, 'json', bytes)]))
const bundle = (entry, options) => build({
  entryPoints: [join(root, entry)], bundle: true, minify: true, write: false, target: 'es2022',
  legalComments: 'eof', logLevel: 'warning', ...options
})
const js = await bundle('web/src/main.ts', {
  // the client loads apache-arrow only for Arrow samples, which the explorer never asks for
  external: ['apache-arrow'],
  format: 'esm', define: { MAP_DATA: JSON.stringify(mapData) }, banner: { js: mapDataNotice() }
})
// leaflet.css comes in through style.css; its few images (controls this page does not use) inline
const css = await bundle('web/style.css', { loader: { '.png': 'dataurl', '.svg': 'dataurl' } })
const html = readFileSync(join(root, 'web/index.html'), 'utf8')
  .replace('%APP_JS%', hashed('app', 'js', js.outputFiles[0].contents))
  .replace('%APP_CSS%', hashed('app', 'css', css.outputFiles[0].contents))
writeFileSync(join(out, 'index.html'), html)
