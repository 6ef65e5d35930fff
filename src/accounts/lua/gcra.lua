-- GCRA, the same steps as gcraStep in limits.ts: {allowed 0|1, µs until the bucket is full,
-- µs until `cost` requests are allowed}. `cost` (default 1) tokens are taken at once or none. The key holds the theoretical arrival time in µs and expires
-- once the bucket is full again (an absent key is a full bucket).
local function gcra_take (key, now, interval, burst, cost)
  cost = cost or 1
  local tat = tonumber(redis.call('GET', key) or '')
  if tat == nil or tat < now then tat = now end
  local nxt = tat + interval * cost
  local allow_at = nxt - burst * interval
  if now < allow_at then return {0, tat - now, allow_at - now} end
  redis.call('SET', key, string.format('%.0f', nxt), 'PX', math.ceil((nxt - now) / 1000))
  return {1, nxt - now, 0}
end
