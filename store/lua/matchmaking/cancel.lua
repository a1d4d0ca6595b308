-- Cancel a waiting ticket (`MatchmakingStore.cancel`): it leaves its pool.
-- KEYS: the ticket, the pool's waiting set, its entries, its bots. ARGV: ticket id, a ticket's TTL once it left
-- the pool (s), the reason ('' when its holder cancelled it).
-- The change is announced on `parlour:changes` as `parlour:match:{ticket:<id>} <version>`.
-- Answers the ticket's status after the call ('cancelled' when this call cancelled it), or '' when it is gone.
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return '' end
if status ~= 'waiting' then return status end
local raw = redis.call('HGET', KEYS[1], 'record')
local record = cjson.decode(raw)
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('HDEL', KEYS[3], ARGV[1])
if type(record.bot) == 'string' then redis.call('HDEL', KEYS[4], record.bot) end
redis.call('HSET', KEYS[1], 'status', 'cancelled')
if ARGV[3] ~= '' then redis.call('HSET', KEYS[1], 'reason', ARGV[3]) end
local version = redis.call('HINCRBY', KEYS[1], 'version', 1)
redis.call('EXPIRE', KEYS[1], ARGV[2])
redis.call('PUBLISH', 'parlour:changes', 'parlour:match:{ticket:' .. ARGV[1] .. '} ' .. version)
return 'cancelled'
