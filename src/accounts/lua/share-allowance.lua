-- include: now today
-- A public client's day without charging: its own attempts and the shared allowance's.
-- KEYS: the client's share, the shared allowance. ARGV: clock. Returns {own used, shared used, ms_to_reset}.
return {used, used_today(KEYS[2]), ms_to_reset}
