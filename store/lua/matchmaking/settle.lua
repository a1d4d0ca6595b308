-- Settle a formed group (`MatchmakingStore.settle`): its match was stored (each ticket `matched`), or could not
-- be (each ticket back to waiting, or cancelled with a reason). Only a ticket still paired to this match changes.
-- KEYS: the pool's waiting set, its entries, its bots, its forming groups, then the group's tickets.
-- ARGV: match id, a ticket's TTL once it left the pool (s), then one outcome per ticket: 'matched', 'waiting'
-- or the reason it is cancelled for.
-- Each ticket changed is announced on `parlour:changes` as `parlour:match:{ticket:<id>} <version>`.
-- Answers how many tickets changed.
local changed = 0
for i = 5, #KEYS do
  local key, outcome = KEYS[i], ARGV[i - 2]
  local status, match = unpack(redis.call('HMGET', key, 'status', 'match'))
  if status == 'paired' and match == ARGV[1] then
    local raw = redis.call('HGET', key, 'record')
    local record = cjson.decode(raw)
    if outcome == 'matched' then
      redis.call('HSET', key, 'status', 'matched')
      redis.call('EXPIRE', key, ARGV[2])
    elseif outcome == 'waiting' then
      redis.call('HSET', key, 'status', 'waiting')
      redis.call('HDEL', key, 'match', 'seat')
      redis.call('ZADD', KEYS[1], record.created_ms, record.id)
      redis.call('HSET', KEYS[2], record.id, raw)
      if type(record.bot) == 'string' then redis.call('HSET', KEYS[3], record.bot, record.id) end
    else
      redis.call('HSET', key, 'status', 'cancelled', 'reason', outcome)
      redis.call('HDEL', key, 'match', 'seat')
      redis.call('EXPIRE', key, ARGV[2])
    end
    local version = redis.call('HINCRBY', key, 'version', 1)
    redis.call('PUBLISH', 'parlour:changes', 'parlour:match:{ticket:' .. record.id .. '} ' .. version)
    changed = changed + 1
  end
end
redis.call('HDEL', KEYS[4], ARGV[1])
return changed
