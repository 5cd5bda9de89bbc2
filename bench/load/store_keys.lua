-- wrk script: GET /v1/store with the key of one of N stores picked at random per request
-- (N is the argument, default 20000). bench/load/key-flood made the keys: store i's is
-- sk_live_ followed by i zero-padded to 32 digits.
local counter = 0
local stores = 20000

function setup(thread)
  counter = counter + 1
  thread:set("id", counter)
end

function init(args)
  if args[1] then stores = tonumber(args[1]) end
  math.randomseed(os.time() * 1000 + id)
end

function request()
  return wrk.format("GET", "/v1/store",
                    {["Authorization"] = string.format("Bearer sk_live_%032d", math.random(1, stores))})
end
