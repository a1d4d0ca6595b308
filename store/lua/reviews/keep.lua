-- Store a match's review for as long as the match is kept (`ReviewStore.keep`).
-- KEYS: the match, its review. ARGV: the review (JSON).
-- Answers 1 when stored, 0 when the match is gone (nothing is stored: a review never outlives its match).
local ttl = redis.call('PTTL', KEYS[1])
if ttl == -2 then return 0 end
if ttl == -1 then
  redis.call('SET', KEYS[2], ARGV[1])
else
  redis.call('SET', KEYS[2], ARGV[1], 'PX', ttl)
end
return 1
