-- Claim a slot for a match only while the tournament runs, so an advance racing a cancellation starts
-- nothing once the cancellation is stored (`TournamentStore.claim_slot`).
-- KEYS: the tournament hash, its matches hash. ARGV: index, match id.
-- Answers 'claimed', 'taken' (the slot has a match) or 'closed' (the tournament no longer runs).
if redis.call('HGET', KEYS[1], 'status') ~= 'running' then return 'closed' end
if redis.call('HSETNX', KEYS[2], ARGV[1], ARGV[2]) == 0 then return 'taken' end
return 'claimed'
