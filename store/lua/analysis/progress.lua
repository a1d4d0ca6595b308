-- Keep an analysis job's newest progress (or its end) and announce it on the change channel.
-- KEYS: the job's hash (`parlour:analysis:{<job id>}`). ARGV: the field (`latest`, or `answer` at the end),
-- its JSON text, the hash's TTL in seconds, the notice (`parlour:match:{analysis:<job id>}`).
-- Progress numbers each `latest` (the hash's `progress`, from 1); the end is announced one past the last progress.
-- Answers the number announced.
local number
if ARGV[1] == 'latest' then
  number = redis.call('HINCRBY', KEYS[1], 'progress', 1)
else
  number = tonumber(redis.call('HGET', KEYS[1], 'progress') or '0') + 1
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('EXPIRE', KEYS[1], ARGV[3])
redis.call('PUBLISH', 'parlour:changes', ARGV[4] .. ' ' .. number)
return number
