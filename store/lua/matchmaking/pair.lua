-- Expire the pool's overdue tickets, then pair its waiting tickets into groups (`MatchmakingStore.pair`).
-- KEYS: the pool's waiting set (ticket id by creation ms), its entries (ticket id -> record JSON), its bots
-- (bot id -> waiting ticket id), its forming groups (match id -> JSON). ARGV: now (ms), players, widening (rating
-- per second), the widening's cap, a ticket's TTL once it left the pool (s), how many of the oldest tickets to
-- look at, the prefix of the pool's ticket keys, then one group the call may form per argument: a match id and
-- the seat of each member in the order they are picked ('<match id> <seat> <seat> ...').
-- A ticket fits another when their ratings differ by at most the smaller of their windows; a group is
-- `players` tickets that all fit each other, the oldest waiting ticket first, then the nearest in rating.
-- Each ticket it expires or pairs is announced on `parlour:changes` as `parlour:match:{ticket:<id>} <version>`.
-- Answers {expired ticket ids, formed groups ({match id, ticket id, seat, ticket id, seat, ...})}.
local now, players = tonumber(ARGV[1]), tonumber(ARGV[2])
local widen, cap, keep, scan, prefix = tonumber(ARGV[3]), tonumber(ARGV[4]), ARGV[5], tonumber(ARGV[6]), ARGV[7]

local function leave(id, record)
  redis.call('ZREM', KEYS[1], id)
  redis.call('HDEL', KEYS[2], id)
  if type(record.bot) == 'string' then redis.call('HDEL', KEYS[3], record.bot) end
end

local function change(id, ...)
  local key = prefix .. id
  redis.call('HSET', key, ...)
  local version = redis.call('HINCRBY', key, 'version', 1)
  redis.call('EXPIRE', key, keep)
  redis.call('PUBLISH', 'parlour:changes', 'parlour:match:{ticket:' .. id .. '} ' .. version)
end

local expired, live = {}, {}
for _, id in ipairs(redis.call('ZRANGE', KEYS[1], 0, scan - 1)) do
  local raw = redis.call('HGET', KEYS[2], id)
  if not raw then
    redis.call('ZREM', KEYS[1], id)
  else
    local record = cjson.decode(raw)
    if record.expires_ms <= now then
      leave(id, record)
      change(id, 'status', 'expired')
      expired[#expired + 1] = id
    else
      local waited = math.max(0, now - record.created_ms) / 1000
      local window = math.min(math.max(cap, record.window), record.window + widen * waited)
      live[#live + 1] = {id = id, record = record, rating = record.rating, window = window}
    end
  end
end

local function fits(a, b)
  return math.abs(a.rating - b.rating) <= math.min(a.window, b.window)
end

local formed, used, next_group = {}, {}, 8
for a = 1, #live do
  if next_group > #ARGV then break end
  if not used[a] then
    local anchor = live[a]
    local candidates = {}
    for b = 1, #live do
      if b ~= a and not used[b] and fits(anchor, live[b]) then
        candidates[#candidates + 1] = {index = b, distance = math.abs(anchor.rating - live[b].rating)}
      end
    end
    table.sort(candidates, function(x, y)
      if x.distance == y.distance then return x.index < y.index end
      return x.distance < y.distance
    end)
    local group = {a}
    for _, candidate in ipairs(candidates) do
      if #group >= players then break end
      local all = true
      for _, member in ipairs(group) do
        if not fits(live[member], live[candidate.index]) then all = false break end
      end
      if all then group[#group + 1] = candidate.index end
    end
    if #group == players then
      local spec = {}
      for part in string.gmatch(ARGV[next_group], '%S+') do spec[#spec + 1] = part end
      next_group = next_group + 1
      local match_id = spec[1]
      local answer, members = {match_id}, {}
      for k, member in ipairs(group) do
        used[member] = true
        local ticket = live[member]
        leave(ticket.id, ticket.record)
        local key = prefix .. ticket.id
        redis.call('HSET', key, 'status', 'paired', 'match', match_id, 'seat', spec[k + 1])
        redis.call('HINCRBY', key, 'version', 1)
        redis.call('EXPIRE', key, keep)
        answer[#answer + 1] = ticket.id
        answer[#answer + 1] = spec[k + 1]
        members[#members + 1] = ticket.id
      end
      redis.call('HSET', KEYS[4], match_id, cjson.encode({tickets = members, at = now}))
      formed[#formed + 1] = answer
    end
  end
end
return {expired, formed}
