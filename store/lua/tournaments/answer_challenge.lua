-- A bot's answer to a waiting tournament's challenge, once (`TournamentStore.answer_challenge`).
-- KEYS: head, consent. ARGV: bot id, answer.
-- Answers 'ok', or what stood in the way: the tournament's status, the bot's earlier answer, 'none', 'missing'.
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return 'missing' end
if status ~= 'waiting' then return status end
local current = redis.call('HGET', KEYS[2], ARGV[1])
if current ~= 'pending' then return current or 'none' end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
return 'ok'
