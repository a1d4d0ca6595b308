-- Take a place in one client's holdings if its quota leaves room (`QuotaStore.add`).
-- KEYS: the holdings set. ARGV: member, score, quota, the set's TTL (0: none), and the score below which
-- members are dropped first ('' for none). Answers {1, count} when added, {0, count} when full.
if ARGV[5] ~= '' then redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[5]) end
local held = redis.call('ZCARD', KEYS[1])
if held >= tonumber(ARGV[3]) then return {0, held} end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
if tonumber(ARGV[4]) > 0 then redis.call('EXPIRE', KEYS[1], ARGV[4]) end
return {1, held + 1}
