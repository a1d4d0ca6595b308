-- Give a match's review to a job (`ReviewStore.claim_job`): when no job holds it, or in place of `replacing`,
-- a job that ended without storing it. The claim lasts `ttl` seconds, and never past its match.
-- KEYS: the match, the review's job claim. ARGV: the new job, the job it replaces ('' for none), the TTL (s).
-- Answers 1 when claimed, 0 when another job holds it, or the match is gone.
local left = redis.call('PTTL', KEYS[1])
if left == -2 then return 0 end
local held = redis.call('GET', KEYS[2])
if (held or '') ~= ARGV[2] then return 0 end
local ttl = tonumber(ARGV[3]) * 1000
if left > 0 and left < ttl then ttl = left end
redis.call('SET', KEYS[2], ARGV[1], 'PX', ttl)
return 1
