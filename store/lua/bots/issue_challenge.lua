-- Tell a bot of a new challenge, once (`BotStore.issue_challenge`).
-- KEYS: bot hash, pending challenges, challenge mark, challenge events.
-- ARGV: challenge id, expiry (ms), event data, the mark's TTL, the stream's cap.
-- Answers the number of the event appended ({} when none was).
if redis.call('HEXISTS', KEYS[1], 'name') == 0 then return {} end
if not redis.call('SET', KEYS[3], 'pending', 'NX', 'EX', ARGV[4]) then return {} end
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
local n = redis.call('HINCRBY', KEYS[1], 'last_event', 1)
redis.call('XADD', KEYS[4], 'MAXLEN', '~', ARGV[5], n .. '-0', 'event', 'challenge', 'data', ARGV[3])
redis.call('PUBLISH', 'parlour:changes', KEYS[1] .. ' ' .. n)
return {n}
