-- include: now gcra
-- KEYS: rate. ARGV: clock, interval µs, burst, cost. Returns gcra_take's triple.
return gcra_take(KEYS[1], now_us(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]))
