// Who a caller without a key is (src/http/tawhiri/client.ts, docs/DESIGN.md §10): the address
// groups it is counted in, and the forwarded hops read from a trusted proxy, edge cases included.
// Requests stand in as what the rule reads of them: the peer's address and the headers.
import t from 'tap'
import type { IncomingMessage } from 'node:http'
import { addressGroup, ClientAddresses } from '../../src/http/tawhiri/index.js'

const request = (peer: string, headers: Record<string, string> = {}): IncomingMessage =>
  ({ socket: { remoteAddress: peer }, headers }) as unknown as IncomingMessage

t.test('an address is counted as IPv4 /32 or IPv6 /64', async (t) => {
  t.equal(addressGroup('203.0.113.5'), '203.0.113.5')
  t.equal(addressGroup('::ffff:203.0.113.5'), '203.0.113.5', 'IPv4-mapped')
  t.equal(addressGroup('::FFFF:cb00:7105'), '203.0.113.5', 'IPv4-mapped, in hexadecimal')
  t.equal(addressGroup('0:0:0:0:0:ffff:203.0.113.5'), '203.0.113.5', 'IPv4-mapped, written out')
  t.equal(addressGroup('::'), '0:0:0:0::/64')
  t.equal(addressGroup('1::'), '1:0:0:0::/64')
  t.equal(addressGroup('2001:db8:1:2:3:4:5:6'), '2001:db8:1:2::/64')
  t.equal(addressGroup('2001:db8:1:2::9'), '2001:db8:1:2::/64')
  t.equal(addressGroup('2001:DB8:0001:0002:ffff::'), '2001:db8:1:2::/64', 'case and leading zeros')
  t.equal(addressGroup('2001:db8::'), '2001:db8:0:0::/64')
  t.equal(addressGroup('::1'), '0:0:0:0::/64')
  t.equal(addressGroup('fe80::1%eth0'), 'fe80:0:0:0::/64', 'a zone is no part of it')
  t.equal(addressGroup('64:ff9b::192.0.2.33'), '64:ff9b:0:0::/64', 'an embedded IPv4 tail')
})

t.test('without trusted proxies the peer is the client, whatever the headers say', async (t) => {
  const clients = new ClientAddresses([])
  t.equal(clients.of(request('::ffff:127.0.0.9', { 'x-forwarded-for': '198.51.100.1' })), '127.0.0.9')
  t.notOk(clients.trusts('127.0.0.1'))
})

t.test('behind trusted proxies: the right-most hop that is not one of them', async (t) => {
  const clients = new ClientAddresses([{ network: '127.0.0.1', prefix: 32, family: 'ipv4' },
    { network: '10.0.0.0', prefix: 8, family: 'ipv4' }, { network: 'fd00::', prefix: 8, family: 'ipv6' }])
  const of = (headers: Record<string, string>, peer = '127.0.0.1'): string => clients.of(request(peer, headers))
  t.equal(of({}), '127.0.0.1', 'no header: the proxy itself')
  t.equal(of({ 'x-forwarded-for': '203.0.113.5' }), '203.0.113.5')
  t.equal(of({ 'x-forwarded-for': '203.0.113.5:51234' }), '203.0.113.5', 'a port is no part of it')
  t.equal(of({ 'x-forwarded-for': '[2001:db8::7]:443' }), '2001:db8::7')
  t.equal(of({ 'x-forwarded-for': '1.1.1.1, 203.0.113.5, 10.9.9.9, fd00::1' }), '203.0.113.5', 'a chain of proxies')
  t.equal(of({ 'x-forwarded-for': '10.1.1.1, 10.2.2.2' }), '10.1.1.1', 'every hop trusted: the left-most')
  t.equal(of({ 'x-forwarded-for': '203.0.113.5, unknown' }), '127.0.0.1',
    'what a trusted proxy wrote that is no address: the proxy stands for it')
  t.equal(of({ 'x-forwarded-for': 'garbage, 10.3.3.3' }), '10.3.3.3', 'likewise behind a chain')
  t.equal(of({ forwarded: 'for=192.0.2.60;proto=http;by=203.0.113.43, For="[2001:db8:cafe::17]:4711"' }),
    '2001:db8:cafe::17', 'RFC 7239, the last element')
  t.equal(of({ forwarded: 'for=_hidden' }), '127.0.0.1', 'an obfuscated identifier')
  t.equal(of({ forwarded: 'proto=https' }), '127.0.0.1', 'an element without for=')
  t.equal(of({ 'x-forwarded-for': '203.0.113.5' }, '::ffff:10.0.0.2'), '203.0.113.5', 'an IPv4-mapped peer')
  t.ok(clients.trusts('::ffff:10.200.0.1'))
  t.notOk(clients.trusts('not an address'))
})
