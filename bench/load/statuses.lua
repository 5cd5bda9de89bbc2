-- wrk script: counts the answers by status and prints the ones other than 200 at the end
-- ("status 503: 80"), so a benchmark can say what its failures were.
local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  statuses = {}
end

function response(status, headers, body)
  statuses[status] = (statuses[status] or 0) + 1
end

function done(summary, latency, requests)
  local total = {}
  for _, thread in ipairs(threads) do
    for status, n in pairs(thread:get("statuses")) do total[status] = (total[status] or 0) + n end
  end
  for status, n in pairs(total) do
    if status ~= 200 then io.write(string.format("status %d: %d\n", status, n)) end
  end
end
