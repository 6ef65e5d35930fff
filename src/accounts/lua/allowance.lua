-- include: now today
-- KEYS: allowance. ARGV: clock. Returns {used, ms_to_reset}.
return {used, ms_to_reset}
