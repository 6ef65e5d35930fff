// What the explorer's forms say when something is wrong, in headless Chromium: a 400's entries
// at the inputs they name, in words (the rest listed under the form); times in ISO UTC, checked
// before anything is sent; "Use key" checking the key and saying why it does not work.
import t from 'tap'
import { startTestService } from '../helpers/service.js'
import { noBrowser, openPage } from '../helpers/browser.js'
import { askFlight, useKey } from '../helpers/explorer-page.js'

const skip = noBrowser()
if (skip !== null) t.comment(skip)

const problem = (status: number, code: string, title: string, extra: object = {}): object => ({
  status, contentType: 'application/problem+json',
  body: JSON.stringify({ type: `/problems/${code}`, title, status, code, request_id: 'test', detail: null, ...extra })
})

t.test('the explorer\'s forms in Chromium', { skip: skip ?? false }, async (t) => {
  const svc = await startTestService(t)
  const { key, keyId } = await svc.newAccount('forms')
  // one tab for every step: each starts from the forms as the step before left them
  const p = await openPage(t, `${svc.url}/`)
  const page = p.page
  const fieldError = (id: string): Promise<string | null> => page.textContent(`#${id}-error`)

  t.test('"Use key" checks the key with GET /v1/account and says whether it works', async (t) => {
    t.equal(await useKey(p, key), 'ok')
    t.match(await page.textContent('#key-state'), /^Key works: [\d\u2009]+ of [\d\u2009]+ data fetches left today\./)
    t.equal(await useKey(p, 'aloft_unknown-key-000000000000'), 'unknown')
    const other = await svc.newAccount('revoked')
    const revoked = await fetch(`${svc.url}/v1/keys/${other.keyId}`, {
      method: 'DELETE', headers: { 'x-api-key': other.key }
    })
    t.equal(revoked.status, 200, 'a second account\'s key revoked')
    t.equal(await useKey(p, other.key), 'revoked')
    t.match(await page.textContent('#key-state'), 'This key has been revoked')
    await page.route(`${svc.url}/v1/account`, (route) => route.fulfill(problem(503, 'service_unavailable',
      'Service unavailable', { detail: 'The account store is unreachable; try again shortly.' })))
    t.equal(await useKey(p, key), 'unavailable')
    t.match(await page.textContent('#key-state'), 'The account store is unavailable, so the key could not be checked')
    await page.unroute(`${svc.url}/v1/account`)
    await page.fill('#key', '')
    await page.click('#key-form button')
    t.equal(await page.textContent('#key-state'), 'No key set.')
    t.equal(await useKey(p, key), 'ok', 'and the working key again')
    t.ok(keyId !== other.keyId)
  })

  t.test('times in ISO UTC: malformed ones are refused at the field, before anything is sent', async (t) => {
    const asked = (): number => p.requests.filter((u) => u.endsWith('/v1/atmosphere/profile')).length
    const before = asked()
    for (const [typed, says] of [
      ['08/04/2020, 12:00 PM', 'is not a time like 2020-08-04T12:00Z'],
      ['2020-02-30T12:00Z', 'is not a real date and time'],
      ['2020-08-04T12:00+02:00', 'Give the time in UTC (ending in Z)']
    ]) {
      await page.fill('#p-time', typed)
      await page.click('#profile-submit')
      t.match(await fieldError('p-time'), says, `“${typed}”: ${says}`)
      t.equal(await page.getAttribute('#p-time', 'aria-invalid'), 'true')
    }
    t.equal(asked(), before, 'no profile was asked for')
    await page.fill('#p-time', '2020-08-04 18:00')
    await page.fill('#p-list', '1000, 3000')
    const [request] = await Promise.all([page.waitForRequest(`${svc.url}/v1/atmosphere/profile`),
      page.click('#profile-submit')])
    t.equal(JSON.parse(request.postData() ?? '{}').time, '2020-08-04T18:00:00Z', 'a UTC time without the Z is sent')
    await page.waitForSelector('#chart-temperature svg .point')
    t.equal(await page.$('#p-time-error'), null, 'and its mark is gone')
  })

  t.test('a 400 from the service: each entry at its input, in words', async (t) => {
    await page.fill('#f-ascent', '0')
    await page.fill('#f-descent', '-1')
    await page.fill('#f-burst-sd', '-5')
    await askFlight(p, 5)
    await page.waitForSelector('#flight-error:not([hidden])')
    t.match(await page.textContent('#flight-error .problem-title'), 'Invalid request (HTTP 400)')
    t.match(await page.textContent('#flight-error'), '3 fields need a change: they are marked above.')
    t.equal(await fieldError('f-ascent'), 'Must be more than 0 m/s.')
    t.equal(await fieldError('f-descent'), 'Must be more than 0 m/s.')
    t.equal(await fieldError('f-burst-sd'), 'Must be 0 m or more.')
    t.equal(await page.getAttribute('#f-ascent', 'aria-describedby'), 'f-ascent-error', 'read with the input')
    const text = await page.textContent('#flight-panel') ?? ''
    t.notMatch(text, /exclusiveMinimum|TrajectoryRequest|greater_than|error\(s\)/, 'no schema words')
    await page.fill('#p-lat', '95')
    await page.click('#profile-submit')
    await page.waitForSelector('#p-lat-error')
    t.equal(await fieldError('p-lat'), 'Must be 90° or less.', 'the profile form too')
    await page.fill('#p-lat', '52.23')
    await page.fill('#f-ascent', '5')
    await page.fill('#f-descent', '5')
    await page.fill('#f-burst-sd', '2000')
    await askFlight(p, 1)
    await page.waitForSelector('#flight-result:not([hidden])')
    t.equal(await page.$$eval('#flight-form .field-error, #flight-form [aria-invalid]', (els) => els.length), 0,
      'fixed: the marks are gone')
  })

  t.test('entries no input matches are listed in words under the form', async (t) => {
    await page.route(`${svc.url}/v1/atmosphere/trajectory`, (route) => route.fulfill(problem(400, 'invalid_request',
      'Invalid request', {
        detail: 'The body does not match TrajectoryRequest: 3 error(s).',
        errors: [
          { loc: ['body', 'launch_latitude'], msg: 'Input should be less than or equal to 90', type: 'less_than_equal',
            input: 91, ctx: { limit: 90 } },
          { loc: ['body', 'dataset'], msg: 'Input should be an RFC 3339 date-time', type: 'datetime_format',
            input: 'yesterday', ctx: { format: 'date-time' } },
          { loc: [], msg: 'The flight needs at least one stage', type: 'value_error' }
        ]
      })))
    await askFlight(p)
    await page.waitForSelector('#flight-error .unplaced-errors')
    t.equal(await fieldError('f-lat'), 'Must be 90° or less.')
    t.same(await page.$$eval('#flight-error .unplaced-errors li', (els) => els.map((e) => e.textContent)), [
      'Dataset: Must be a UTC time like 2020-08-04T12:00Z.',
      'The request: The flight needs at least one stage.'
    ])
    t.match(await page.textContent('#flight-error'), 'One field needs a change: it is marked above.')
    await page.unroute(`${svc.url}/v1/atmosphere/trajectory`)
    const unexpected = p.errors.filter((e) => !/status of (400|401|503)/.test(e))
    t.same(unexpected, [], 'no console errors but the refusals themselves')
  })
})
