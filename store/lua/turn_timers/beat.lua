-- Write the timer scheduler's heartbeat `now` (ARGV[1], ms) unless a later one is there (another host's
-- clock ahead), and record the silence since the previous beat as a downtime when it exceeds ARGV[2] ms
-- (`TimerClock.beat`). Atomic, so of several timer workers only one records each downtime.
-- KEYS: the heartbeat, the downtimes list. Answers 1 when a downtime was recorded, else 0.
local last = redis.call('GET', KEYS[1])
local now = tonumber(ARGV[1])
if last and now <= tonumber(last) then return 0 end
redis.call('SET', KEYS[1], ARGV[1])
if last and now - tonumber(last) > tonumber(ARGV[2]) then
  redis.call('RPUSH', KEYS[2], '{"since":' .. last .. ',"until":' .. ARGV[1] .. '}')
  return 1
end
return 0
