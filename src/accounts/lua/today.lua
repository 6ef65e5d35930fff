-- Today's allowance count (0 when the stored day is another) and the ms left to 00:00 UTC.
-- KEYS[1]: the allowance hash; ARGV[1]: the clock (see now.lua).
local now = math.floor(now_us(ARGV[1]) / 1000)
local day = math.floor(now / 86400000)
local ms_to_reset = (day + 1) * 86400000 - now
local stored = redis.call('HMGET', KEYS[1], 'day', 'used')
local used = 0
if tonumber(stored[1]) == day then used = tonumber(stored[2]) end
