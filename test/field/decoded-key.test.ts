// The decoded-unit cache's key for a piece of a unit: built once per (unit, piece corner), so each
// cached profile looks up one stored string rather than hashing a new concatenation.
import t from 'tap'
import { decodedKey } from '../../src/field/field.js'

const box = (i0: number, j0: number) => ({ i0, j0, ni: 64, nj: 64 })

t.test('a whole unit is keyed by the unit key itself', async (t) => {
  t.equal(decodedKey('gfs/2020080412/f006', undefined), 'gfs/2020080412/f006')
})

t.test('a piece is keyed by unit and corner, the same string each time', async (t) => {
  const a = decodedKey('gfs/2020080412/f006', box(64, 128))
  t.equal(a, 'gfs/2020080412/f006#64,128')
  t.equal(decodedKey('gfs/2020080412/f006', box(64, 128)), a)
})

t.test('corners that would collide as i + j or as digits stay apart', async (t) => {
  const keys = new Set([
    decodedKey('u', box(1, 23)), decodedKey('u', box(12, 3)), decodedKey('u', box(23, 1)),
    decodedKey('u', box(1439, 0)), decodedKey('u', box(0, 1439)), decodedKey('v', box(1, 23))
  ])
  t.equal(keys.size, 6)
  t.ok(keys.has('u#12,3') && keys.has('v#1,23'))
})
