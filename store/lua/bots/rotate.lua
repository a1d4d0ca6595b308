-- Replace a bot's token hash, only if it is still the one the caller proved (`BotStore.rotate`).
-- KEYS: bot hash. ARGV: old hash, new hash. Answers 1 when replaced, else 0.
if redis.call('HGET', KEYS[1], 'token_hash') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'token_hash', ARGV[2])
return 1
