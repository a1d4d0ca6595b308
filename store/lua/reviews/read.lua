-- A match's review (`ReviewStore.read`), its expiry (and its job's claim's, if longer) set again to the match's,
-- which a later change of the match (a rematch offer) may have moved; none once the match is gone (the review
-- and the claim are deleted with it).
-- KEYS: the match, its review, its review's job claim. Answers the review (JSON) or false.
local ttl = redis.call('PTTL', KEYS[1])
if ttl == -2 then
  redis.call('DEL', KEYS[2], KEYS[3])
  return false
end
local review = redis.call('GET', KEYS[2])
if ttl > 0 then
  if review then redis.call('PEXPIRE', KEYS[2], ttl) end
  if redis.call('PTTL', KEYS[3]) > ttl then redis.call('PEXPIRE', KEYS[3], ttl) end
end
return review
