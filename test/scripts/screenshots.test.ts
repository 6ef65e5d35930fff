// The README's command for a picture of the whole explorer (`npm run screenshots -- --page …`, a
// block the README test cannot run: it needs the clone), run as written from a folder of its own:
// the PNG lands there, the window's width and the page's whole length, taken once the page had the
// source's coverage and its map.
import t from 'tap'
import { execFile } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { noBrowser } from '../helpers/browser.js'
import { ROOT } from '../helpers/paths.js'
import { linesDiffer } from '../helpers/shown-output.js'

const exec = promisify(execFile)
const readme = await readFile(`${ROOT}README.md`, 'utf8')
const [, command = '', shown = ''] = /^\$ (npm run screenshots -- --page .+)\n((?:[^$`\n][^\n]*\n)*)/m.exec(readme) ?? []

t.test('the README\'s whole-page picture is taken once the page has its coverage and its map', {
  skip: noBrowser() ?? false
}, async (t) => {
  t.match(command, /--page (\S+\.png) --width (\d+)/, 'the README gives the command, a file and a width')
  const [, file, width] = /--page (\S+\.png) --width (\d+)/.exec(command) ?? ['', 'explorer.png', '1280']
  const dir = await mkdtemp(join(tmpdir(), 'aloft-screenshot-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  // npm runs the script in the clone, wherever it was started: --prefix names the clone from elsewhere.
  // A newcomer's shell has none of the suite's variables (the demo refuses an ALOFT_ name it does not know)
  const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '',
    ...(process.env.CHROMIUM_PATH === undefined ? {} : { CHROMIUM_PATH: process.env.CHROMIUM_PATH }) }
  const { stdout } = await exec('bash', ['-c', command.replace('npm run', `npm --prefix '${ROOT}' run`)],
    { cwd: dir, env, encoding: 'utf8' })
  const png = await readFile(join(dir, file))
  // the PNG's IHDR: width, then height, big-endian after the signature and the chunk's length and type
  t.equal(png.readUInt32BE(16), Number(width), `${width} px wide`)
  t.ok(png.readUInt32BE(20) > 900, `the whole page, longer than the window (${png.readUInt32BE(20)} px)`)
  t.match(stdout, /48\.00…56\.00° N, 13\.00…25\.00° E\./, 'the coverage was on the page')
  t.match(stdout, 'the natural-earth map', 'and the bundled map')
  t.equal(linesDiffer(shown, stdout), null, 'it printed what the README shows', { printed: stdout })
})
