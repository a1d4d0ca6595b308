-- A challenge is over (accepted, declined, expired, or its match or tournament ended): drop it from the
-- pending ones, and tell the bot once with `challenge-canceled` if the data is given and it was told of the
-- challenge (`BotStore.resolve_challenge`). KEYS as for issue_challenge.lua.
-- ARGV: challenge id, event data or '', the mark's TTL, the stream's cap.
-- Answers the number of the event appended ({} when none was).
if redis.call('HEXISTS', KEYS[1], 'name') == 0 then return {} end
local mark = redis.call('GET', KEYS[3])
if mark == 'over' then return {} end
redis.call('SET', KEYS[3], 'over', 'EX', ARGV[3])
redis.call('ZREM', KEYS[2], ARGV[1])
if mark ~= 'pending' or ARGV[2] == '' then return {} end
local n = redis.call('HINCRBY', KEYS[1], 'last_event', 1)
redis.call('XADD', KEYS[4], 'MAXLEN', '~', ARGV[4], n .. '-0', 'event', 'challenge-canceled', 'data', ARGV[2])
redis.call('PUBLISH', 'parlour:changes', KEYS[1] .. ' ' .. n)
return {n}
