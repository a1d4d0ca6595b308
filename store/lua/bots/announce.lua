-- Tell a bot what one change means for one of its seats (`BotStore.announce`), each event once:
-- `match-started` the first time the seat is seen running, `your-turn` when it may act at a version newer
-- than the last one it was told, `match-over` once; nothing once the bot is deleted (no key of it is made
-- again). Several processes may announce versions out of order; the mark keeps the newest.
-- KEYS: bot hash, matches set, seat mark, events stream.
-- ARGV: match id, version, finished (0/1), may act (0/1), the three events' data (no `match-started` data
-- for a match aborted before the bot was told it started), the mark's TTL while playing and once over, and
-- the stream's cap. Answers the numbers of the events it appended.
if redis.call('HEXISTS', KEYS[1], 'name') == 0 then return {} end
local mark = redis.call('GET', KEYS[3])
local phase, last = 'new', -1
if mark then
  local space = string.find(mark, ' ')
  phase, last = string.sub(mark, 1, space - 1), tonumber(string.sub(mark, space + 1))
end
if phase == 'over' then return {} end
local version = tonumber(ARGV[2])
local sent = {}
local function emit(event, data)
  local n = redis.call('HINCRBY', KEYS[1], 'last_event', 1)
  redis.call('XADD', KEYS[4], 'MAXLEN', '~', ARGV[10], n .. '-0', 'event', event, 'data', data)
  redis.call('PUBLISH', 'parlour:changes', KEYS[1] .. ' ' .. n)
  table.insert(sent, n)
end
if phase == 'new' then
  redis.call('SADD', KEYS[2], ARGV[1])
  if ARGV[5] ~= '' then emit('match-started', ARGV[5]) end
end
if ARGV[3] == '1' then
  emit('match-over', ARGV[7])
  if redis.call('SREM', KEYS[2], ARGV[1]) == 1 then redis.call('HINCRBY', KEYS[1], 'finished', 1) end
  redis.call('SET', KEYS[3], 'over ' .. version, 'EX', ARGV[9])
  return sent
end
if ARGV[4] == '1' and version > last then
  emit('your-turn', ARGV[6])
  last = version
end
redis.call('SET', KEYS[3], 'playing ' .. last, 'EX', ARGV[8])
return sent
