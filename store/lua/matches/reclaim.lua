-- Hand a claim (an AI turn's, a requested move's) from the job that held it to another, unless someone
-- else did already. KEYS: the claim. ARGV: the job that held it, the new job, the claim's TTL.
-- Answers 1 when handed over, else 0.
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3])
  return 1
end
return 0
