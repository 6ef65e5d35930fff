#!/usr/bin/env node
// Builds the optional native JPEG 2000 codec (native/openjpeg) against the system's libopenjp2, the
// library ecCodes links. It never fails the install: without a C compiler or libopenjp2's headers
// (Debian: libopenjp2-7-dev) 5.40 fields decode with the WebAssembly build of the same library,
// ~1.3× slower. `npm ci` runs this through `prepare`; run it again after installing the headers.
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const dir = join(dirname(fileURLToPath(import.meta.url)), '..', 'native', 'openjpeg')
const skip = (why) => {
  console.log(`native OpenJPEG not built (${why}); JPEG 2000 fields decode with the WebAssembly build`)
  process.exit(0)
}

if (process.env.ALOFT_SKIP_NATIVE === '1') skip('ALOFT_SKIP_NATIVE=1')
try {
  execFileSync('pkg-config', ['--exists', 'libopenjp2'], { stdio: 'ignore' })
} catch {
  if (!existsSync('/usr/include/openjpeg-2.5/openjpeg.h')) skip('no libopenjp2 headers: install libopenjp2-7-dev')
}
// npm hands its own node-gyp to lifecycle scripts; outside npm, look beside npm itself
const candidates = [
  process.env.npm_config_node_gyp,
  process.env.npm_execpath && join(dirname(process.env.npm_execpath), '..', 'node_modules', 'node-gyp', 'bin',
    'node-gyp.js'),
  join(dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js')
].filter((p) => typeof p === 'string' && existsSync(p))
if (candidates.length === 0) skip('node-gyp not found')
// Node's own headers when its installation has them (no download); else node-gyp fetches them
const prefix = join(dirname(process.execPath), '..')
const hasHeaders = existsSync(join(prefix, 'include', 'node', 'node_api.h'))
const nodedir = process.env.npm_config_nodedir === undefined && hasHeaders ? [`--nodedir=${prefix}`] : []
const r = spawnSync(process.execPath, [candidates[0], 'rebuild', ...nodedir], { cwd: dir, encoding: 'utf8' })
if (r.status !== 0) {
  const lines = `${r.stdout ?? ''}${r.stderr ?? ''}`.split('\n').filter((l) => /error|ERR!/i.test(l)).slice(0, 6)
  skip(`node-gyp failed:\n  ${lines.join('\n  ')}`)
}
console.log(`native OpenJPEG built: ${join(dir, 'build', 'Release', 'aloft_openjpeg.node')}`)
