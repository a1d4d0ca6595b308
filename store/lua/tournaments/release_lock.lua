-- Release a tournament's lock if this process still holds it (`TournamentStore.locked`).
-- KEYS: the lock. ARGV: the holder's token. Answers 1 when released, else 0.
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
