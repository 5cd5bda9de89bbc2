#include "api/endpoints.hpp"
#include "common/stage_timing.hpp"
#include "json/writer.hpp"

namespace storeapi::api {

void render_stage_timings(std::string& out) {
  const auto stages = stage_timing::snapshot();
  json::Writer w(out);
  w.begin_object().key("stages").begin_object();
  for (std::size_t s = 0; s < stages.size(); ++s) {
    w.key(stage_timing::name(static_cast<stage_timing::Stage>(s))).begin_array();
    for (const auto& [highest_ns, count] : stages[s])
      w.begin_array().integer(static_cast<std::int64_t>(highest_ns)).integer(static_cast<std::int64_t>(count)).end_array();
    w.end_array();
  }
  w.end_object().end_object();
}

}  // namespace storeapi::api
