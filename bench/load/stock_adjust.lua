-- wrk script: POST /v1/products/{id}/variants/{variant_id}/stock with mode adjust +1 on a
-- target drawn at random, each request with an Idempotency-Key never used before.
--   wrk ... -s stock_adjust.lua URL -- TARGETS_FILE RUN_ID API_KEY
-- TARGETS_FILE holds one stock path per line; RUN_ID keeps keys of separate runs apart.

local threads = 0
function setup(thread)
  threads = threads + 1
  thread:set("thread_id", threads)
end

local paths = {}
local headers = {}
local run = ""
local sent = 0
local body = '{"mode":"adjust","quantity":1}'

function init(args)
  for line in io.lines(args[1]) do paths[#paths + 1] = line end
  run = args[2]
  headers["Authorization"] = "Bearer " .. args[3]
  headers["Content-Type"] = "application/json"
  math.randomseed(tonumber(run) + thread_id)
end

function request()
  sent = sent + 1
  headers["Idempotency-Key"] = run .. "-" .. thread_id .. "-" .. sent
  return wrk.format("POST", paths[math.random(#paths)], headers, body)
end
