-- Count a match among the bot's matches at once, if its cap leaves room (`BotStore.reserve`).
-- KEYS: the bot's matches. ARGV: match id, cap (0: none).
-- Answers 1 when added, 2 when it was counted already, 0 when full.
if redis.call('SISMEMBER', KEYS[1], ARGV[1]) == 1 then return 2 end
local cap = tonumber(ARGV[2])
if cap > 0 and redis.call('SCARD', KEYS[1]) >= cap then return 0 end
redis.call('SADD', KEYS[1], ARGV[1])
return 1
