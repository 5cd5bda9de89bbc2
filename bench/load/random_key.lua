-- wrk script: GET /v1/store (or the path given as its argument) with a fresh, well-formed
-- but unknown API key on every request: a SHA-256, a miss in the per-core cache and a
-- look in the node's set of key hashes, answered 401 invalid_api_key without a query
-- (bench/load/key-flood measures it; before that set, each cost one prepared SELECT by
-- hash, which auth.sh's (b) compared with pgbench).
local alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
local counter = 0
local path = "/v1/store"

function setup(thread)
  counter = counter + 1
  thread:set("id", counter)
end

function init(args)
  if args[1] then path = args[1] end
  -- Each thread its own sequence: equal keys would hit the negative cache.
  math.randomseed(os.time() * 1000 + id)
end

function request()
  local chars = {}
  for i = 1, 32 do
    local r = math.random(1, 62)
    chars[i] = alphabet:sub(r, r)
  end
  return wrk.format("GET", path, {["Authorization"] = "Bearer sk_live_" .. table.concat(chars)})
end
