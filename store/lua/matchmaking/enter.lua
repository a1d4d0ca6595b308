-- Enter a ticket into its pool's waiting tickets (`MatchmakingStore.enter`), unless its bot waits there already.
-- KEYS: the ticket, the pool's waiting set, its entries, its bots. ARGV: ticket id, the ticket's record (JSON),
-- its creation (ms), its bot's id ('' for a person), the ticket's TTL (s).
-- Answers {1, ticket id} when entered, {0, the bot's waiting ticket's id} when the bot waits in the pool already.
if ARGV[4] ~= '' then
  local held = redis.call('HGET', KEYS[4], ARGV[4])
  if held then return {0, held} end
end
redis.call('HSET', KEYS[1], 'record', ARGV[2], 'status', 'waiting', 'version', 1)
redis.call('EXPIRE', KEYS[1], ARGV[5])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
redis.call('HSET', KEYS[3], ARGV[1], ARGV[2])
if ARGV[4] ~= '' then redis.call('HSET', KEYS[4], ARGV[4], ARGV[1]) end
return {1, ARGV[1]}
