-- Start a waiting tournament once every bot accepted (ARGV[1] = 'begin'), or abort it (ARGV[1] = 'abort',
-- with the reason and time) unless every bot accepted meanwhile (`TournamentStore.begin`, `abort`).
-- KEYS: head, consent. ARGV: 'begin' or 'abort', reason, time. Answers 1 when it started or aborted, else 0.
if redis.call('HGET', KEYS[1], 'status') ~= 'waiting' then return 0 end
local all = true
for _, answer in ipairs(redis.call('HVALS', KEYS[2])) do
  if answer ~= 'accepted' then all = false end
end
if ARGV[1] == 'begin' then
  if not all then return 0 end
  redis.call('HSET', KEYS[1], 'status', 'running')
  return 1
end
if all then return 0 end
redis.call('HSET', KEYS[1], 'status', 'aborted', 'abort_reason', ARGV[2], 'finished_at', ARGV[3])
return 1
