-- now_us(arg): the caller's clock in ms when given, else the Redis server's TIME, in microseconds,
-- so every instance shares one clock whatever its own says.
local function now_us (arg)
  if arg ~= '' then return tonumber(arg) * 1000 end
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000000 + tonumber(t[2])
end
