-- Store a bot's challenge policy and cap, if the bot is registered (`BotStore.set_policy`).
-- KEYS: bot hash. ARGV: policy, cap (0: none). Answers 1 when stored, 0 when there is no such bot.
if redis.call('HEXISTS', KEYS[1], 'name') == 0 then return 0 end
redis.call('HSET', KEYS[1], 'policy', ARGV[1], 'max_matches', ARGV[2])
return 1
