-- Read part of a match's log (`MatchStore.log_page`). Versions rise along the list but are not positions
-- (a join or an abort changes the version without an entry), so positions are found by binary search; entry i
-- has a version of at least i + 1, so the entries after version `after` start at position `after` at the latest.
-- KEYS: the log, and optionally the match. ARGV: after, limit, upto (the version of the record read: entries
-- written since are left out), tail, newest (1: the newest `limit` entries after `after`, else the oldest).
-- Answers the page's first position, the end position (the log as of `upto`), the version of the entry
-- before the page (-1 if none), the page and the `tail` entries after it. Given the match, the record is read
-- with its page in one call (`MatchStore.load_with_log`): `upto` is its version, and the record comes sixth
-- (false when the match is gone).
local key = KEYS[1]
local after, limit, upto = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local record = false
if KEYS[2] then
  local stored = redis.call('HMGET', KEYS[2], 'version', 'record')
  if not stored[2] then return {0, 0, -1, {}, {}, false} end
  upto, record = tonumber(stored[1]), stored[2]
end
local tail, newest = tonumber(ARGV[4]), ARGV[5] == '1'
local function version_at(i)
  return tonumber(cjson.decode(redis.call('LINDEX', key, i))['version'])
end
local function first_above(v, lo, hi)
  while lo < hi do
    local mid = math.floor((lo + hi) / 2)
    if version_at(mid) > v then hi = mid else lo = mid + 1 end
  end
  return lo
end
local stop = redis.call('LLEN', key)
if stop > 0 and version_at(stop - 1) > upto then stop = first_above(upto, 0, stop) end
local start = first_above(after, 0, math.min(stop, after))
if newest then start = math.max(start, stop - limit) end
local finish = math.min(start + limit, stop)
local before = -1
if start > 0 then before = version_at(start - 1) end
local page, later = {}, {}
if finish > start then page = redis.call('LRANGE', key, start, finish - 1) end
local from = math.max(finish, stop - tail)
if from < stop then later = redis.call('LRANGE', key, from, stop - 1) end
return {start, stop, before, page, later, record}
