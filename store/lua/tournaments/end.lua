-- End a running tournament (finished or cancelled; a waiting one may be cancelled too), once
-- (`TournamentStore.end`). KEYS: the hash, the running set, its slots, matches, outcomes and consent.
-- ARGV: the new status, the time, the keys' TTL, the tournament id.
-- Answers the status it had ('' when there is no such tournament).
local status = redis.call('HGET', KEYS[1], 'status')
if status ~= 'running' and not (status == 'waiting' and ARGV[1] == 'cancelled') then return status or '' end
redis.call('HSET', KEYS[1], 'status', ARGV[1], 'finished_at', ARGV[2])
redis.call('SREM', KEYS[2], ARGV[4])
for i = 1, 6 do if i ~= 2 then redis.call('EXPIRE', KEYS[i], ARGV[3]) end end
return status
