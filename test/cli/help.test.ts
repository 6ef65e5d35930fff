// `aloft --help`, `--version` and every command's and subcommand's `--help`, through the built
// command in its own process, as a user types them.
import t from 'tap'
import { readFile } from 'node:fs/promises'
import { COMMANDS } from '../../src/cli/commands.js'
import { runAloft, ROOT } from '../helpers/cli.js'
import { repoPath } from '../helpers/paths.js'

const FIXTURE = repoPath(
  'test/fixtures/grib/Porbi96+GFS-forecast-web-app/data/gfs/20200728/12z/gfs.pgrb2.0p25.f000')

t.test('aloft --help lists every command and exits 0', async (t) => {
  const r = await runAloft(['--help'], {}, { covered: true })
  t.equal(r.code, 0)
  for (const name of Object.keys(COMMANDS)) t.match(r.stdout, new RegExp(`^  ${name} `, 'm'), name)
})

t.test('aloft --version prints the version of package.json', async (t) => {
  const { version } = JSON.parse(await readFile(`${ROOT}package.json`, 'utf8')) as { version: string }
  for (const flag of ['--version', '-v']) {
    const r = await runAloft([flag], {}, { covered: true })
    t.equal(r.code, 0, flag)
    t.equal(r.stdout, `${version}\n`, flag)
  }
})

const invocations = Object.entries(COMMANDS).flatMap(([name, c]) => [[name], ...c.subcommands.map((s) => [name, s])])

t.test('every command and subcommand answers --help with its usage on stdout and exit 0', async (t) => {
  const results = await Promise.all(invocations.map(async (words) =>
    ({ words, r: await runAloft([...words, '--help']) })))
  for (const { words, r } of results) {
    const name = `aloft ${words.join(' ')} --help`
    t.equal(r.code, 0, name)
    t.match(r.stdout, new RegExp(`usage:[\\s\\S]*aloft ${words[0]}`), name)
    t.equal(r.stderr, '', `${name}: nothing on stderr`)
  }
})

t.test('-h is --help', async (t) => {
  const r = await runAloft(['grib', 'value', '-h'])
  t.equal(r.code, 0)
  t.match(r.stdout, /^usage: aloft grib/)
})

t.test('aloft help <command> is <command> --help', async (t) => {
  const viaHelp = await runAloft(['help', 'grib'])
  const viaFlag = await runAloft(['grib', '--help'])
  t.equal(viaHelp.code, 0)
  t.equal(viaHelp.stdout, viaFlag.stdout)
})

t.test('grib --help names every key grib --json prints, level_value for non-pressure levels included', async (t) => {
  const help = (await runAloft(['grib', '--help'])).stdout
  const keys = new Set<string>()
  const collect = (value: unknown): void => {
    if (Array.isArray(value)) { value.forEach(collect); return }
    if (value === null || typeof value !== 'object') return
    for (const [k, v] of Object.entries(value)) { keys.add(k); collect(v) }
  }
  const inspect = await runAloft(['grib', 'inspect', FIXTURE, '--json'])
  const value = await runAloft(['grib', 'value', FIXTURE, '--lat', '52.5', '--lon', '21', '--json'])
  t.equal(inspect.code, 0)
  t.equal(value.code, 0)
  collect(JSON.parse(inspect.stdout))
  collect(JSON.parse(value.stdout))
  t.ok(keys.has('level_value') && keys.has('level_pa'), 'the file has isobaric and other levels')
  for (const key of keys) t.match(help, new RegExp(`\\b${key}\\b`), key)
})

t.test('serve --help shows each variable\'s real default, ALOFT_UPSTREAM_PER_MINUTE\'s included', async (t) => {
  const r = await runAloft(['serve', '--help'])
  t.match(r.stdout, /^ {2}ALOFT_UPSTREAM_PER_MINUTE +default 100 \(noaa, filter\), 6000 \(mirror\)$/m)
  t.notMatch(r.stdout, /ALOFT_UPSTREAM_PER_MINUTE +default \(unset\)/)
})

t.test('upstream --help says what the stand-in serves and every option with its default', async (t) => {
  const r = await runAloft(['upstream', '--help'])
  t.equal(r.code, 0)
  for (const option of [/--root DIR +the directory/, /--port P +TCP port \(default 8081/, /--host H +address to bind/,
    /ALOFT_SOURCE=mirror:/]) t.match(r.stdout, option)
})
