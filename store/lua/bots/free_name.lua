-- Free an unregistered bot's name, unless another bot holds it now.
-- KEYS: the names hash. ARGV: the folded name, the bot id. Answers 1 when freed, else 0.
if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then return redis.call('HDEL', KEYS[1], ARGV[1]) end
return 0
