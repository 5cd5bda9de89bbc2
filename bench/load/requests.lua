-- wrk script for bench/load/dbcost: requests from a file, one per line as
--   METHOD<TAB>PATH[<TAB>BODY]
--   wrk ... -s requests.lua URL -- FILE API_KEY ORDER KEYS RUN_ID THREADS
-- ORDER: random (any line, again and again) or once (each line at most once across all
-- threads, in order; for writes that move a record forward and cannot repeat).
-- KEYS: key (a fresh Idempotency-Key on every request) or none. RUN_ID keeps the keys of
-- separate runs apart. In a body, PRICE becomes a random amount from 500.00 to 999.99, so
-- every price update changes the price.
local threads = 0
function setup(thread)
  threads = threads + 1
  thread:set("thread_id", threads)
end

local lines = {}
local headers = {}
local order, keyed, run, nthreads
local sent = 0

function init(args)
  for line in io.lines(args[1]) do
    local method, path, body = line:match("^(%S+)\t([^\t]+)\t?(.*)$")
    lines[#lines + 1] = {method = method, path = path, body = body}
  end
  headers["Authorization"] = "Bearer " .. args[2]
  order, keyed, run, nthreads = args[3], args[4] == "key", args[5], tonumber(args[6])
  math.randomseed(tonumber(run) % 1000000007 + thread_id)
end

function request()
  local line
  if order == "once" then
    line = lines[(thread_id - 1 + nthreads * sent) % #lines + 1]
  else
    line = lines[math.random(#lines)]
  end
  sent = sent + 1
  local h = {}
  for k, v in pairs(headers) do h[k] = v end
  if keyed then h["Idempotency-Key"] = run .. "-" .. thread_id .. "-" .. sent end
  local body = nil
  if line.body ~= "" then
    h["Content-Type"] = "application/json"
    body = line.body:gsub("PRICE", string.format("%d.%02d", math.random(500, 999), math.random(0, 99)))
  end
  return wrk.format(line.method, line.path, h, body)
end
