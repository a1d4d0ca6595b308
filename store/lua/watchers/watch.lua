-- Count a watcher as watching a match until a time, drop the watchers that lapsed, and keep the key as long
-- as its latest watcher. KEYS: the match's watchers. ARGV: the watcher, when it lapses (epoch ms), now (epoch ms).
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[3])
local latest = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
if latest[2] then
  redis.call('PEXPIREAT', KEYS[1], latest[2])
end
return 1
