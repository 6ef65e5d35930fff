// The Python client (clients/python) as a user gets it: installed offline by its README's install
// block, run as pasted with Debian's python3 (whose environment lends it Debian's pandas), and its
// tests (clients/python/tests) run from that environment against the demo on a free port and a
// second demo limited to 1 request a second. Each Python test is one assertion here; a skipped one
// (the Arrow frame, where pyarrow is not importable) is reported as skipped. How it installs, with
// which Pythons, and what it installs: python-install.test.ts.
import t, { type Test } from 'tap'
import { execFile } from 'node:child_process'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { createClient, describeProblem, ProblemError } from '../../clients/typescript/src/index.js'
import { startDemo } from '../helpers/demo.js'
import { repoPath } from '../helpers/paths.js'
import { consoleBlock, DEBIAN, installAsWritten, pythonMissing, pythonTest } from '../helpers/python-client.js'

const exec = promisify(execFile)

pythonTest(t, 'the Python client\'s tests, installed as its README writes it with Debian\'s python3',
  pythonMissing(DEBIAN, ['pandas']), suite)

/**
 * Problems the service answered, and made ones for every kind of field error, with the TypeScript
 * client's messages: the Python client must write the same.
 */
async function messageCases (url: string, key: string): Promise<unknown[]> {
  const client = createClient({ baseUrl: url, apiKey: key, maxRetries: 0 })
  const profile = {
    latitude: 52.23, longitude: 21.01, time: '2020-08-04T18:00:00Z', altitudes_m: [300],
    altitude_reference: 'agl' as const
  }
  const refused: Array<() => Promise<unknown>> = [
    () => client.profile({ ...profile, latitude: 152.23 }),
    () => client.profile({ ...profile, altitudes_m: [1] }),
    () => client.profile({ ...profile, altitudes_m: [300, 300], time: 'yesterday', colour: 'red' } as never),
    () => client.profile({ latitude: 'north' } as never),
    () => client.samples({ latitude: [], longitude: [1], altitude_m: [1], time: '2020-08-04T18:00:00Z',
      altitude_reference: 'up' } as never),
    () => client.trajectory({ launch_latitude: 52, launch_longitude: 21, launch_datetime: '2020-08-04T12:00:00Z',
      ascent_rate: -1, profile: 'float_profile' } as never),
    () => client.createKey({ name: '' }),
    () => createClient({ baseUrl: url, apiKey: 'aloft_wrong' }).usage(),
    () => createClient({ baseUrl: url }).usage()
  ]
  const cases: unknown[] = []
  for (const call of refused) {
    const err = await call().then(() => null, (e: unknown) => e)
    if (!(err instanceof ProblemError)) throw new Error(`expected a ProblemError, got ${String(err)}`)
    cases.push({ status: err.status, problem: err.problem, retry_after: err.retryAfter, message: err.message })
  }
  const types = ['missing', 'extra_forbidden', 'greater_than', 'greater_than_equal', 'less_than', 'less_than_equal',
    'too_short', 'too_long', 'datetime_format', 'unique_items', 'enum', 'literal_error', 'string_pattern_mismatch',
    'number_type', 'int_type', 'string_type', 'bool_type', 'list_type', 'dict_type', 'none_type', 'something_new']
  const errors: Array<Record<string, unknown>> = types.map((type, i) => ({
    loc: ['body', 'altitudes_m', i], msg: type === 'too_long' ? 'at most 5 characters' : `a ${type} message`, type,
    input: 1000.5, ctx: { limit: i % 2 === 0 ? 12.5 : 2.5, expected: type === 'enum' ? ['agl', 'msl'] : 1 }
  }))
  // the samples' own point count says max_length, and an Arrow body's none at all
  errors.push(
    { loc: ['body', 'latitude'], msg: 'at most 5 points', type: 'too_long', input: 0, ctx: { max_length: 5 } },
    { loc: ['body'], msg: 'too many points', type: 'too_long', input: 0, ctx: {} })
  const made = [
    { status: 400, problem: { type: '/problems/invalid_request', title: 'Invalid request', status: 400,
      code: 'invalid_request', request_id: 'r', detail: 'made', errors }, retry_after: null },
    { status: 429, problem: { type: '/problems/rate_limited', title: 'Too many', status: 429, code: 'rate_limited',
      request_id: 'r' }, retry_after: 7 },
    { status: 403, problem: { type: '/problems/forbidden', title: 'Forbidden', status: 403, code: 'forbidden',
      request_id: 'r', detail: '' }, retry_after: null },
    { status: 409, problem: { type: '/problems/outside_vertical_range', title: 'Outside', status: 409,
      code: 'outside_vertical_range', request_id: 'r', detail: null,
      coverage: { minimum_agl_m: 2.5, maximum_agl_m: 100.5, minimum_msl_m: -0.4, maximum_msl_m: 1e22 } },
    retry_after: null },
    { status: 500, problem: { type: '/problems/internal_error', title: 'Oops', status: 500, code: null,
      request_id: null }, retry_after: null },
    { status: 502, problem: null, retry_after: null },
    { status: 502, problem: null, retry_after: null, title: 'HTTP 502 Bad Gateway', detail: '<html>proxy</html>' },
    { status: 301, problem: null, retry_after: null, title: 'HTTP 301 Moved Permanently' },
    { status: 503, problem: null, retry_after: 2 }
  ]
  for (const c of made) {
    const { title, detail } = c as { title?: string, detail?: string }
    cases.push({ ...c, message: describeProblem(c.status, c.problem as never, c.retry_after, title, detail) })
  }
  return cases
}

async function suite (t: Test): Promise<void> {
  const block = consoleBlock(await readFile(repoPath('clients/python/README.md'), 'utf8'))
  const { code, stderr, python, site, work } = await installAsWritten(t, block, DEBIAN)
  if (code !== 0) { t.fail('the README\'s install block failed', { stderr }); return }
  const [demo, slow] = await Promise.all([
    startDemo(t), startDemo(t, { ALOFT_RATE_PER_SECOND: '1', ALOFT_RATE_BURST: '1' })
  ])
  const cases = join(work, 'message-cases.json')
  await writeFile(cases, JSON.stringify(await messageCases(demo.url, demo.exports.ALOFT_API_KEY)))

  const run = await exec(python, [repoPath('clients/python/tests/run.py')], {
    cwd: work,
    env: {
      PATH: process.env.PATH ?? '', PYTHONDONTWRITEBYTECODE: '1', ALOFT_WHEEL_SITE: site,
      ...demo.exports, ALOFT_SLOW_URL: slow.url, ALOFT_SLOW_KEY: slow.exports.ALOFT_API_KEY,
      ALOFT_MESSAGE_CASES: cases
    }
  }).then((r) => r, (err: { stdout: string, stderr: string }) => err)
  const results = new Map(run.stdout.split('\n').filter((l) => l.startsWith('{')).map((line) => {
    const r = JSON.parse(line) as { name: string, outcome: string, why: string }
    return [r.name, r]
  }))
  // every test the file holds, so one that did not run is a failure too
  const source = await readFile(repoPath('clients/python/tests/test_client.py'), 'utf8')
  const names = [...source.matchAll(/^ {4}def (test_\w+)/gm)].map((m) => m[1])

  t.test('every test of the Python client ran', async (t) => {
    t.ok(names.length >= 25, `${names.length} Python tests`)
    t.same(names.filter((name) => !results.has(name)), [], 'none missing', { stderr: run.stderr.slice(-3000) })
  })
  for (const name of names) {
    const result = results.get(name)
    const title = name.replace(/^test_/, '').replaceAll('_', ' ')
    if (result === undefined) continue
    if (result.outcome === 'skip') t.test(title, { skip: result.why }, async () => {})
    else t.test(title, async (t) => { t.equal(result.outcome, 'ok', result.why) })
  }
}
