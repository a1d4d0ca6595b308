-- Compare-and-set of a match (`MatchStore.commit`): the record, its log entries, the stored answer to an
-- Idempotency-Key, and the change announced on `parlour:changes`, all or nothing.
-- KEYS: the match, its log, and (optional) the Idempotency-Key's answer and the seat's list of answer keys.
-- ARGV: the version expected, the new version, the record, the TTL, the answer to keep and its TTL, how many
-- answers a seat keeps, this commit's id, then the log entries to append (none for a change without a move;
-- several for a run of moves). The answers dropped are keys of the same match.
-- Answers {'ok', new version}, {'stale', current version}, {'missing', ''} or {'replay', stored answer}.
-- The commit's id (random, kept in the match's `commit` field) tells this call from any other: the same call sent
-- again (its connection was lost before the answer came, as in a failover) finds its own id stored at the new
-- version and answers 'ok' again, having written nothing; another writer's change at that version is 'stale'.
if KEYS[3] then
  local prior = redis.call('GET', KEYS[3])
  if prior then return {'replay', prior} end
end
local current = redis.call('HGET', KEYS[1], 'version')
if not current then return {'missing', ''} end
if current ~= ARGV[1] then
  if current == ARGV[2] and redis.call('HGET', KEYS[1], 'commit') == ARGV[8] then return {'ok', ARGV[2]} end
  return {'stale', current}
end
redis.call('HSET', KEYS[1], 'version', ARGV[2], 'record', ARGV[3], 'commit', ARGV[8])
if #ARGV > 8 then redis.call('RPUSH', KEYS[2], unpack(ARGV, 9)) end
redis.call('EXPIRE', KEYS[1], ARGV[4])
redis.call('EXPIRE', KEYS[2], ARGV[4])
redis.call('PUBLISH', 'parlour:changes', KEYS[1] .. ' ' .. ARGV[2])
if KEYS[3] then
  redis.call('SET', KEYS[3], ARGV[5], 'EX', ARGV[6])
  local kept = tonumber(ARGV[7])
  redis.call('LPUSH', KEYS[4], KEYS[3])
  for _, old in ipairs(redis.call('LRANGE', KEYS[4], kept, -1)) do redis.call('DEL', old) end
  redis.call('LTRIM', KEYS[4], 0, kept - 1)
  redis.call('EXPIRE', KEYS[4], ARGV[6])
end
return {'ok', ARGV[2]}
