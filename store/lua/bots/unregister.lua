-- Unregister a bot whose token hash is still the one the caller proved: its name and token go at once
-- (`BotStore.unregister`). KEYS: bot hash. ARGV: the token hash. Answers 1 when unregistered, else 0.
if redis.call('HGET', KEYS[1], 'token_hash') ~= ARGV[1] then return 0 end
redis.call('HDEL', KEYS[1], 'name', 'token_hash', 'created_at')
return 1
