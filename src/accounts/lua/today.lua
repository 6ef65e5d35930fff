-- Today (UTC days since the epoch), the ms left to 00:00 UTC, and a day counter's attempts today
-- (`used_today`: 0 when the stored day is another); `used` is KEYS[1]'s.
-- KEYS[1]: the allowance hash; ARGV[1]: the clock (see now.lua).
local now = math.floor(now_us(ARGV[1]) / 1000)
local day = math.floor(now / 86400000)
local ms_to_reset = (day + 1) * 86400000 - now
local function used_today (key)
  local stored = redis.call('HMGET', key, 'day', 'used')
  if tonumber(stored[1]) == day then return tonumber(stored[2]) end
  return 0
end
local used = used_today(KEYS[1])
